// The simulation's work queue with plain work items: batches between event-loop turns (at most 2,000 items or 20 ms
// of work), shorter while a watch client is behind (so sockets drain between them), and settle() once everything
// has run.
import { describe, expect, it } from "vitest";
import { ControlLoop } from "../src/control-loop.js";

/** One turn of the event loop: setImmediate callbacks queued before this one (the loop's batch) run first. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("ControlLoop", () => {
  function loopWith(items: number, behind: () => boolean, msPerItem = 0) {
    let now = 0;
    const loop = new ControlLoop(
      (error) => {
        throw error;
      },
      2000,
      () => now,
    );
    const done: string[] = [];
    loop.handle("work", (id) => {
      done.push(id);
      now += msPerItem;
    });
    loop.slowDownWhile(behind);
    for (let i = 0; i < items; i++) loop.enqueue("work", String(i));
    return { loop, done };
  }

  it("runs up to a batch per event-loop turn, in order, duplicates once", async () => {
    const { loop, done } = loopWith(2500, () => false);
    loop.enqueue("work", "0");
    await nextTurn();
    expect(done).toHaveLength(2000);
    await loop.settle();
    expect(done).toEqual(Array.from({ length: 2500 }, (_, i) => String(i)));
  });

  it("a batch ends after 20 ms of work, so requests are served between batches; everything still runs", async () => {
    const { loop, done } = loopWith(100, () => false, 5);
    await nextTurn();
    expect(done).toHaveLength(4);
    await nextTurn();
    expect(done).toHaveLength(8);
    await loop.settle();
    expect(done).toHaveLength(100);
  });

  it("while a client is behind, a batch ends every 100 items; everything still runs", async () => {
    let behind = true;
    const { loop, done } = loopWith(1000, () => behind);
    await nextTurn();
    expect(done).toHaveLength(100);
    await nextTurn();
    expect(done).toHaveLength(200);
    behind = false;
    await loop.settle();
    expect(done).toHaveLength(1000);
  });
});
