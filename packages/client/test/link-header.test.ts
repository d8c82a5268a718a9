// The Link header parser, as pure logic (run on the sources).
import { describe, expect, it } from "vitest";
import { parseLinkHeader } from "../src/endpoints/pagination.js";

describe("parseLinkHeader", () => {
  it("keeps URLs whole when they hold commas and semicolons", () => {
    const header = '<https://api.example/x?cursor=a,b;c&page=2>; rel="next", <https://api.example/x?page=9>; rel="last"';
    expect(parseLinkHeader(header)).toEqual({ next: "https://api.example/x?cursor=a,b;c&page=2", last: "https://api.example/x?page=9" });
  });

  it("reads bare and quoted relations, several per link, in any case, beside other parameters", () => {
    const header = '<https://a/x?page=2>;rel=next;title="a, <b>; c", <https://a/x?page=1>; REL="Prev First"';
    expect(parseLinkHeader(header)).toEqual({ next: "https://a/x?page=2", prev: "https://a/x?page=1", first: "https://a/x?page=1" });
  });

  it("keeps the first link of a relation and the first rel of a link", () => {
    expect(parseLinkHeader('<https://a/1>; rel="next"; rel="prev", <https://a/2>; rel="next"')).toEqual({ next: "https://a/1" });
  });

  it("gives nothing for no header or one without links", () => {
    expect(parseLinkHeader(null)).toEqual({});
    expect(parseLinkHeader("")).toEqual({});
    expect(parseLinkHeader("rel=next")).toEqual({});
  });
});
