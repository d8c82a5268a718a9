import type { FastifyReply, FastifyRequest } from "fastify";

/** The `per_page` rules of one list endpoint. */
export interface ListLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

export type PageRequest = { ok: true; page: number; perPage: number } | { ok: false; field: "page" | "per_page"; value: string };

/**
 * Reads `page` and `per_page` as the service does: defaults when absent, `per_page` above the maximum
 * lowered to it; a value that is not a positive integer is reported so routes that answer 422 can.
 */
export function readPage(query: Record<string, unknown>, limits: ListLimits): PageRequest {
  const page = readPositive(query.page);
  if (page === null) return { ok: false, field: "page", value: String(query.page) };
  const perPage = readPositive(query.per_page);
  if (perPage === null) return { ok: false, field: "per_page", value: String(query.per_page) };
  return { ok: true, page: page ?? 1, perPage: Math.min(perPage ?? limits.defaultPerPage, limits.maxPerPage) };
}

/** Like readPage, but bad values fall back to the defaults (endpoints that never answer 422). */
export function readPageLeniently(query: Record<string, unknown>, limits: ListLimits): { page: number; perPage: number } {
  const page = readPositive(query.page) ?? 1;
  const perPage = Math.min(readPositive(query.per_page) ?? limits.defaultPerPage, limits.maxPerPage);
  return { page: page || 1, perPage: perPage || limits.defaultPerPage };
}

function readPositive(raw: unknown): number | undefined | null {
  if (raw === undefined || raw === "") return undefined;
  const text = Array.isArray(raw) ? String(raw[0]) : String(raw);
  if (!/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 ? value : null;
}

/** One page of items plus the `Link` header (first, prev, next, last) the service sends with it. */
export function pageOf<T>(
  items: readonly T[],
  page: number,
  perPage: number,
  request: FastifyRequest,
  reply: FastifyReply,
  base: string,
): T[] {
  const lastPage = Math.max(1, Math.ceil(items.length / perPage));
  const link = (target: number) => {
    const url = new URL(request.url, base);
    url.searchParams.set("per_page", String(perPage));
    url.searchParams.set("page", String(target));
    return `<${url.toString()}>`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(`${link(Math.min(page - 1, lastPage))}; rel="prev"`);
  if (page < lastPage) parts.push(`${link(page + 1)}; rel="next"`, `${link(lastPage)}; rel="last"`);
  if (page > 1) parts.push(`${link(1)}; rel="first"`);
  if (parts.length > 0) reply.header("link", parts.join(", "));
  return items.slice((page - 1) * perPage, page * perPage);
}
