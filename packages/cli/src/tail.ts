import type { PollerOptions } from "@shiplog/client";
import { oneLine } from "./cli-errors.js";
import type { CommandContext } from "./program.js";

/** What a tail says on stderr while it rides out errors (the poller retries them with backoff). */
export function pollerReporting(ctx: CommandContext): Pick<PollerOptions, "onError"> {
  return {
    onError: (error, info) => ctx.io.stderr(`retrying in ${Math.ceil(info.delayMs / 1000)} s after: ${oneLine(error, ctx.connection)}\n`),
  };
}

/** Prints each item the poller yields, as it comes, until the poller ends (Ctrl-C aborts its signal). */
export async function printUntilStopped<T>(
  items: AsyncIterable<T>,
  ctx: CommandContext,
  format: (item: T) => string | Promise<string>,
): Promise<void> {
  for await (const item of items) ctx.io.stdout(await format(item));
}
