/**
 * The `verification` of a tag object (spec 2.4). The emulator registers no keys, so no signature is ever
 * verified; what it reports follows the spec's table of reasons:
 * - no signature block in the message: `unsigned`;
 * - a PGP block whose armored body is an OpenPGP packet: `unknown_key` (no account has the key);
 * - a PGP block that does not decode to a packet: `malformed_signature`;
 * - an SSH or X.509 block: `unknown_signature_type` (the spec spells it `unknown_signature_` plus a suffix).
 * `signature` is the block as found, `payload` the signed bytes: the tag object's text before the block.
 */
export interface TagVerification {
  verified: false;
  reason: string;
  signature: string | null;
  payload: string | null;
  verified_at: null;
}

const BLOCK = /-----BEGIN (PGP SIGNATURE|SSH SIGNATURE|SIGNED MESSAGE)-----\n[\s\S]*?-----END \1-----\n?$/;

/** The verification of a tag whose object text is `content` and whose message is `message` (as stored). */
export function tagVerification(content: string, message: string): TagVerification {
  const match = BLOCK.exec(message);
  if (!match) return { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null };
  const signature = match[0];
  const payload = content.slice(0, content.length - signature.length);
  return { verified: false, reason: reasonFor(match[1]!, signature), signature, payload, verified_at: null };
}

function reasonFor(kind: string, block: string): string {
  if (kind === "SSH SIGNATURE") return "unknown_signature_type";
  if (kind === "SIGNED MESSAGE") return "unknown_signature_type";
  // The armored body: after the headers' blank line, base64 lines up to the checksum line (`=XXXX`).
  const lines = block
    .split("\n")
    .slice(1, -1)
    .filter((l) => !l.startsWith("-----"));
  const blank = lines.indexOf("");
  const body = (blank >= 0 ? lines.slice(blank + 1) : lines).filter((l) => !l.startsWith("=")).join("");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return "malformed_signature";
  const first = Buffer.from(body, "base64")[0];
  // An OpenPGP packet header has its top bit set; a signature packet has tag 2.
  const isSignaturePacket = first !== undefined && (first & 0x80) !== 0 && (first & 0x40 ? first & 0x3f : (first >> 2) & 0x0f) === 2;
  return isSignaturePacket ? "unknown_key" : "malformed_signature";
}
