import { promisify } from "node:util";
import { brotliDecompress, constants, gunzip, inflate, inflateRaw, type ZlibOptions } from "node:zlib";

/** What the engine asks for, as fetch does. */
export const ACCEPT_ENCODING = "gzip, deflate, br";
/** A decoded answer larger than this is refused: no API answer comes near it, a decompression bomb would. */
const MAX_DECODED_BYTES = 256 * 1024 * 1024;

// Flushed rather than finished, as fetch decodes: an empty or cut-short stream gives what it holds, not an error.
const zlibOptions: ZlibOptions = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: MAX_DECODED_BYTES };
const gunzipAsync = promisify<Buffer, ZlibOptions, Buffer>(gunzip);
const inflateAsync = promisify<Buffer, ZlibOptions, Buffer>(inflate);
const inflateRawAsync = promisify<Buffer, ZlibOptions, Buffer>(inflateRaw);
const brotliAsync = promisify<Buffer, object, Buffer>(brotliDecompress);

/** An answer whose content-encoding the client does not know, or whose bytes do not decode. */
export class UndecodableBodyError extends Error {
  constructor(
    readonly encoding: string,
    reason: string,
  ) {
    super(`the answer's body does not decode as ${encoding}: ${reason}`);
  }
}

/** The codings of a content-encoding header, in the order they were applied. */
export function contentCodings(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return values
    .flatMap((value) => value.split(","))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

/**
 * Undoes the codings (last applied first) and reads the result as UTF-8 text, without a byte order mark. A coding
 * the client does not know leaves the body as it came, as fetch leaves it (servers write `none` or `utf-8` there).
 */
export async function decodeBody(codings: readonly string[], body: Buffer): Promise<string> {
  let bytes = body;
  const known = codings.every((coding) => Object.hasOwn(DECODERS, coding));
  for (const coding of known ? [...codings].reverse() : []) {
    if (bytes.length === 0) break;
    try {
      bytes = await DECODERS[coding]!(bytes);
    } catch (error) {
      throw new UndecodableBodyError(codings.join(", "), error instanceof Error ? error.message : String(error));
    }
  }
  const text = bytes.toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const DECODERS: Record<string, (bytes: Buffer) => Promise<Buffer>> = {
  gzip: (bytes) => gunzipAsync(bytes, zlibOptions),
  "x-gzip": (bytes) => gunzipAsync(bytes, zlibOptions),
  // Servers send deflate both with the zlib wrapper (as the RFC says) and without it; fetch takes both.
  deflate: (bytes) => (hasZlibWrapper(bytes) ? inflateAsync(bytes, zlibOptions) : inflateRawAsync(bytes, zlibOptions)),
  br: (bytes) =>
    brotliAsync(bytes, {
      flush: constants.BROTLI_OPERATION_FLUSH,
      finishFlush: constants.BROTLI_OPERATION_FLUSH,
      maxOutputLength: MAX_DECODED_BYTES,
    }),
};

/** RFC 1950's header: compression method 8, and the first two bytes a multiple of 31. */
function hasZlibWrapper(bytes: Buffer): boolean {
  return bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0;
}
