import { createHash } from "node:crypto";

// Kubernetes' rand.SafeEncodeString alphabet: no vowels (no accidental words), no confusable characters.
const ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** Seeded generator for name suffixes and uids, so a seeded cluster produces the same names every run. */
export class NameGenerator {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }

  private next(): number {
    // mulberry32
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Five-character suffix like the ones generateName and ReplicaSets use. */
  suffix(length = 5): string {
    let out = "";
    for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(this.next() * ALPHABET.length)];
    return out;
  }

  /** An RFC 4122-shaped uid. */
  uid(): string {
    const hex: string[] = [];
    for (let i = 0; i < 32; i++) hex.push(Math.floor(this.next() * 16).toString(16));
    const h = hex.join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** FNV-32a hash of a string. */
function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Stable JSON (sorted keys), so equal templates hash equally. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** pod-template-hash / controller-revision-hash of a pod template, encoded like Kubernetes does. */
export function templateHash(template: unknown): string {
  const decimal = String(fnv32a(stableJson(template)));
  let out = "";
  for (let i = 0; i < decimal.length; i++) out += ALPHABET[decimal.charCodeAt(i) % ALPHABET.length];
  return out;
}

/** Deterministic hex (sha256) of a string, e.g. for container IDs. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
