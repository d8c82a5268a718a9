/** The emulator's notion of now: the real time, shifted or frozen for tests (retirement dates, event ages). */
export class Clock {
  #offsetMs = 0;
  #frozenAt: number | undefined;

  now(): Date {
    return new Date(this.nowMs());
  }

  nowMs(): number {
    return this.#frozenAt ?? Date.now() + this.#offsetMs;
  }

  /** Sets the current time; it keeps running from there unless frozen. */
  set(time: Date | string, options: { freeze?: boolean } = {}): void {
    const target = new Date(time).getTime();
    if (options.freeze) {
      this.#frozenAt = target;
    } else {
      this.#frozenAt = undefined;
      this.#offsetMs = target - Date.now();
    }
  }

  /** Moves the clock forward. */
  advance(ms: number): void {
    if (this.#frozenAt !== undefined) this.#frozenAt += ms;
    else this.#offsetMs += ms;
  }

  /** Back to real time. */
  reset(): void {
    this.#offsetMs = 0;
    this.#frozenAt = undefined;
  }

  /** The service's timestamp form: ISO 8601 to the second, `Z`. */
  timestamp(date: Date = this.now()): string {
    return date.toISOString().replace(/\.\d{3}Z$/, "Z");
  }
}
