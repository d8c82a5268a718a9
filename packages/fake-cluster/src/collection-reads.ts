// GET on a collection: list pages (limit/continue, consistent at the first page's resourceVersion, written out in
// chunks) and watches.
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { partialObjectMetadata, type KubeObject } from "./kube-object.js";
import type { ListPage } from "./list-pages.js";
import type { Query, Target } from "./request-target.js";
import { filterFrom, notFoundPath, one, sendJson } from "./request-target.js";
import type { RouteContext } from "./route-context.js";
import type { ResourceName } from "./resource-kinds.js";
import { apiVersionOf } from "./resource-kinds.js";
import { ApiError, badRequest, expired } from "./status.js";
import { outputForm } from "./output-form.js";
import { toTable } from "./table-printers.js";
import { viewJson } from "./events-view.js";
import { TOO_LARGE_RV_WAIT_MS, tooLargeResourceVersion } from "./watch-stream.js";

/** Where a list continues: the first page's resourceVersion (-1: the latest, after an expired token) and last key. */
interface ContinueToken {
  rv: number;
  start: string;
}

const encodeContinue = (token: ContinueToken) => Buffer.from(JSON.stringify(token)).toString("base64url");

function decodeContinue(text: string): ContinueToken {
  try {
    const token = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as ContinueToken;
    const valid = typeof token.rv === "number" && Number.isInteger(token.rv) && token.rv >= -1 && typeof token.start === "string";
    if (!valid) throw new Error("shape");
    return token;
  } catch {
    throw badRequest("continue: Invalid value: the continue token is not valid");
  }
}

/** The real server's words when the first page's revision is compacted; its Status carries a token to go on anyway. */
const INCONSISTENT_CONTINUE = [
  "The provided continue parameter is too old to display a consistent list result.",
  "You can start a new list without the continue parameter,",
  "or use the continue token in this response to retrieve the remainder of the results.",
  "Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time",
  "the first chunk was returned and now may show up in the list.",
].join(" ");

/** Lists larger than this go out in chunks of about this size (chunked encoding) rather than as one string. */
const CHUNK_CHARS = 256 * 1024;

/** The list body in pieces of about CHUNK_CHARS: the items are the store's strings, joined a chunk at a time. */
function* listChunks(head: string, items: readonly string[]): Generator<string> {
  let chunk = head;
  for (let i = 0; i < items.length; i++) {
    chunk += i === 0 ? items[i] : `,${items[i]}`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}]}`;
}

/**
 * A list's item as the API server writes it: without apiVersion and kind (the list's own say what they are). The
 * store writes them first, so they are cut off the text; any other text is decoded.
 */
function listItem(prefix: string, json: string): string {
  if (json.startsWith(prefix)) return `{${json.slice(prefix.length)}`;
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = JSON.parse(json) as KubeObject;
  return JSON.stringify(rest);
}

/** Answers a list: one string when small, else streamed (the socket's backpressure paces the chunks). */
function sendList(reply: FastifyReply, head: string, items: readonly string[]): FastifyReply {
  let size = head.length;
  for (let i = 0; i < items.length && size <= CHUNK_CHARS; i++) size += items[i]!.length + 1;
  if (size <= CHUNK_CHARS) return sendJson(reply, 200, `${head}${items.join(",")}]}`);
  return reply
    .code(200)
    .type("application/json")
    .send(Readable.from(listChunks(head, items), { objectMode: false }));
}

/** What a list and a watch check first: no subresource; the request is counted; an injected failure is answered. */
function startRead(ctx: RouteContext, target: Target, kind: "list" | "watch"): ResourceName {
  if (target.subresource !== undefined) throw notFoundPath();
  const resource = target.kind.resource;
  ctx.stats.count(kind, resource);
  const failure = ctx.faults.takeFailure(kind, resource);
  if (failure) throw failure;
  return resource;
}

/** ListOptions' resourceVersionMatch, validated as the API server does (422 on the ListOptions). */
export function checkResourceVersionMatch(query: Query, watch: boolean): "Exact" | "NotOlderThan" | undefined {
  const match = one(query, "resourceVersionMatch");
  if (match === undefined || match === "") return undefined;
  const refuse = (reason: string, message: string) =>
    new ApiError(422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: ${message}`, {
      group: "meta.k8s.io",
      kind: "ListOptions",
      causes: [{ reason, message, field: "resourceVersionMatch" }],
    });
  if (watch && one(query, "sendInitialEvents") === undefined)
    throw refuse("FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided");
  const rv = one(query, "resourceVersion");
  if (match !== "Exact" && match !== "NotOlderThan")
    throw refuse("FieldValueNotSupported", `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan", ""`);
  if (rv === undefined || rv === "")
    throw refuse("FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided");
  if (match === "Exact" && rv === "0")
    throw refuse("FieldValueForbidden", 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  return match;
}

/**
 * Resolves once the store has reached `rv`, or rejects after TOO_LARGE_RV_WAIT_MS with the 504 "Too large resource
 * version" a list at a resourceVersion the server has not reached gets (the watch cache's waitUntilFreshAndBlock).
 */
function waitForResourceVersion(ctx: RouteContext, rv: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const unsubscribe = ctx.store.subscribe(() => {
      if (ctx.store.currentRv() < rv) return;
      cancelTimer();
      unsubscribe();
      resolve();
    });
    const cancelTimer = ctx.store.clock.after(TOO_LARGE_RV_WAIT_MS, () => {
      unsubscribe();
      reject(tooLargeResourceVersion(rv, ctx.store.currentRv()));
    });
  });
}

/**
 * GET on a collection without watch: one page (or all) of it, as the API server answers. `resourceVersion` "0" reads
 * the whole collection (the watch cache ignores `limit`); any other reads at least that fresh (waiting up to 3 s for
 * it, then 504), and with `resourceVersionMatch=Exact` the collection as it was at that resourceVersion.
 */
export function listCollection(
  ctx: RouteContext,
  target: Target,
  query: Query,
  reply: FastifyReply,
  accept?: string,
): FastifyReply | Promise<FastifyReply> {
  const match = checkResourceVersionMatch(query, false);
  const rvText = one(query, "resourceVersion");
  if (rvText !== undefined && rvText !== "" && !/^\d+$/.test(rvText))
    throw badRequest(
      `invalid resource version: resourceVersion: Invalid value: "${rvText}": strconv.ParseUint: parsing "${rvText}": invalid syntax`,
    );
  const wanted = rvText === undefined || rvText === "" ? 0 : Number(rvText);
  if (wanted > ctx.store.currentRv() && !one(query, "continue"))
    return waitForResourceVersion(ctx, wanted).then(() => listPage(ctx, target, query, reply, accept, match, wanted));
  return listPage(ctx, target, query, reply, accept, match, wanted);
}

function listPage(
  ctx: RouteContext,
  target: Target,
  query: Query,
  reply: FastifyReply,
  accept: string | undefined,
  match: "Exact" | "NotOlderThan" | undefined,
  wanted: number,
): FastifyReply {
  const resource = startRead(ctx, target, "list");
  const limitText = one(query, "limit");
  let limit = limitText === undefined ? 0 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0) throw badRequest(`limit: Invalid value: "${limitText}": must be a non-negative integer`);
  if (one(query, "resourceVersion") === "0") limit = 0;
  const filter = filterFrom(target, query);
  const continueText = one(query, "continue");
  let rv = ctx.store.currentRv();
  let page: ListPage;
  if (match === "Exact" && !continueText) {
    rv = wanted;
    try {
      page = ctx.pages.read({ resource, filter, limit, rv });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 410) throw error;
      throw expired("The resourceVersion for the provided list is too old.");
    }
  } else if (continueText) {
    const token = decodeContinue(continueText);
    if (token.rv === -1) {
      page = ctx.pages.read({ resource, filter, limit, after: token.start });
    } else {
      // Every page shows the collection as it was at the first page's resourceVersion.
      rv = token.rv;
      try {
        page = ctx.pages.read({ resource, filter, limit, after: token.start, rv: token.rv });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 410) throw error;
        throw expired(INCONSISTENT_CONTINUE, { continue: encodeContinue({ rv: -1, start: token.start }) });
      }
    }
  } else {
    page = ctx.pages.read({ resource, filter, limit });
  }
  const meta: Record<string, unknown> = { resourceVersion: String(rv) };
  if (page.continueAfter !== undefined) {
    meta.continue = encodeContinue({ rv, start: page.continueAfter });
    if (page.remaining !== undefined) meta.remainingItemCount = page.remaining;
  }
  const form = outputForm(accept, true);
  if (form.kind === "table") {
    const objects = page.items.map((json) => JSON.parse(viewJson(target.kind, json)) as KubeObject);
    return sendJson(reply, 200, JSON.stringify(toTable(resource, objects, meta, one(query, "includeObject"), ctx.store.clock.now())));
  }
  if (form.kind === "metadata") {
    const items = page.items.map((json) => partialObjectMetadata(JSON.parse(json) as KubeObject, form.version));
    return sendJson(
      reply,
      200,
      JSON.stringify({ kind: "PartialObjectMetadataList", apiVersion: `meta.k8s.io/${form.version}`, metadata: meta, items }),
    );
  }
  const head = `{"kind":"${target.kind.kind}List","apiVersion":"${apiVersionOf(target.kind)}","metadata":${JSON.stringify(meta)},"items":[`;
  const prefix = `{"apiVersion":"${apiVersionOf(target.kind)}","kind":"${target.kind.kind}",`;
  return sendList(
    reply,
    head,
    page.items.map((json) => listItem(prefix, viewJson(target.kind, json))),
  );
}

/** GET on a collection with watch=true: hands the connection to the watch hub. */
export function watchCollection(ctx: RouteContext, target: Target, query: Query, reply: FastifyReply, accept?: string): void {
  checkResourceVersionMatch(query, true);
  const resource = startRead(ctx, target, "watch");
  const timeoutText = one(query, "timeoutSeconds");
  const timeoutSeconds = timeoutText === undefined ? undefined : Number(timeoutText);
  if (timeoutSeconds !== undefined && (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)) {
    throw badRequest(`timeoutSeconds: Invalid value: "${timeoutText}"`);
  }
  const request = {
    resource,
    filter: filterFrom(target, query),
    resourceVersion: one(query, "resourceVersion"),
    timeoutSeconds,
    allowBookmarks: one(query, "allowWatchBookmarks") === "true",
    form: outputForm(accept, false),
    includeObject: one(query, "includeObject"),
    ...(target.kind.view && { view: target.kind }),
  };
  reply.hijack();
  const res = reply.raw;
  try {
    ctx.watches.open(request, res);
  } catch (error) {
    const apiError = error instanceof ApiError ? error : new ApiError(500, "InternalError", String(error));
    if (!res.headersSent) res.writeHead(apiError.code, { "Content-Type": "application/json" });
    res.end(JSON.stringify(apiError.toStatus()));
  }
}
