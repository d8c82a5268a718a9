// The emulator's git object ids against the real git binary: tags created over HTTP hash like
// `git hash-object -t tag`, and fixture commits equal the commits git makes from the same files.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { tempDir } from "../../../test/kit/temp-dir.js";

let emulator: Emulator;
let client: ShiplogClient;
beforeAll(async () => {
  emulator = await startEmulator();
  client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
});
afterAll(() => emulator.stop());

/** git's own id for a tag object's content. */
function gitHashTag(content: string): string {
  return execFileSync("git", ["hash-object", "-t", "tag", "--stdin"], { input: Buffer.from(content, "utf8") })
    .toString()
    .trim();
}

/** An ISO timestamp with the given offset, for a moment given in epoch seconds (built independently of the emulator). */
function isoWithOffset(seconds: number, offsetMinutes: number): string {
  const local = new Date((seconds + offsetMinutes * 60) * 1000).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

function gitOffset(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  return `${offsetMinutes < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}

const NAMES = [
  "Zoë Ünïcödé",
  "李小龍",
  "O'Brien, Jr.",
  "Anne-Marie d’Arc",
  "dependabot[bot]",
  "A",
  "Ελένη Παπαδοπούλου",
  "José 🚀 Ramírez",
  "x y  z",
];
const EMAILS = [
  "zoe@example.com",
  "li@例え.jp",
  "ob+tags@example.org",
  "am@x.io",
  "49699333+dependabot[bot]@users.noreply.example",
  "a@b",
  "eleni@example.gr",
  "jose@example.mx",
  "xyz@example.net",
];
const MESSAGES = [
  "Release 1.0.0",
  "Release 1.0.0\n",
  "First line\n\nBody with details.\n- fix: one\n- feat: two",
  "Ünïcödé message: 日本語のメッセージ 🎉",
  "trailing blank lines\n\n\n",
  "   leading spaces kept",
  "tab\tseparated\tvalues",
  "emoji only 🏷️",
  "line one\r\nwindows line two",
  "Signed-off-by: Somebody <s@example.com>",
  "Signed release\n-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEEq5ps2Jx0K0Yg9xS0aGzDHw7uNgoFAmYAAAAACgkQaGzDHw7u\n=abcd\n-----END PGP SIGNATURE-----\n",
  "No final newline after the block\n-----BEGIN PGP SIGNATURE-----\n\nnot base64 at all!\n-----END PGP SIGNATURE-----",
];
const TAG_NAMES = [
  "v1.0.0",
  "v2.0.0-rc.1",
  "release/2026.03",
  "v1.2.3+build.7",
  "ünï-tag",
  "日本-1",
  "deploy/prod/42",
  "v0.0.1_alpha",
  "x",
  "a.b.c",
];
const OFFSETS = [0, 60, -420, 330, -210, 765, -720, 840, 45, -60];

describe("tag object ids equal git hash-object -t tag", () => {
  const cases = Array.from({ length: 26 }, (_, i) => ({
    tag: `${TAG_NAMES[i % TAG_NAMES.length]}-${i}`,
    message: MESSAGES[i % MESSAGES.length]!,
    name: NAMES[i % NAMES.length]!,
    email: EMAILS[i % EMAILS.length]!,
    seconds: 1_700_000_000 + i * 86_413,
    offset: OFFSETS[i % OFFSETS.length]!,
    target: i % 3,
  }));

  for (const c of cases) {
    it(`${JSON.stringify(c.tag)} by ${JSON.stringify(c.name)} (${gitOffset(c.offset)})`, async () => {
      const repo = emulator.state.git.repository("acme", "web")!;
      const commits = repo.commits();
      const object = commits[c.target % commits.length]!.sha;
      const created = await client.git.createTag({
        owner: "acme",
        repo: "web",
        tag: c.tag,
        message: c.message,
        object,
        type: "commit",
        tagger: { name: c.name, email: c.email, date: isoWithOffset(c.seconds, c.offset) },
      });
      const body = c.message.endsWith("\n") ? c.message : `${c.message}\n`;
      const content = `object ${object}\ntype commit\ntag ${c.tag}\ntagger ${c.name} <${c.email}> ${c.seconds} ${gitOffset(c.offset)}\n\n${body}`;
      expect(created.sha).toBe(gitHashTag(content));
      const read = await client.git.getTag({ owner: "acme", repo: "web", tag_sha: created.sha });
      expect(read).toMatchObject({ sha: created.sha, tag: c.tag, message: body, tagger: { name: c.name, email: c.email } });
      expect(Date.parse(read.tagger.date) / 1000).toBe(c.seconds);
      // The returned fields alone reproduce the returned sha: message as stored, date with its offset.
      const zone = /(Z|[+-]\d\d:\d\d)$/.exec(read.tagger.date)![1]!;
      const fromFields =
        `object ${read.object.sha}\ntype ${read.object.type}\ntag ${read.tag}\n` +
        `tagger ${read.tagger.name} <${read.tagger.email}> ${Date.parse(read.tagger.date) / 1000} ${zone === "Z" ? "+0000" : zone.replace(":", "")}\n\n${read.message}`;
      expect(gitHashTag(fromFields)).toBe(read.sha);
      const signed = body.indexOf("-----BEGIN PGP SIGNATURE-----");
      if (signed < 0) expect(read.verification).toMatchObject({ verified: false, reason: "unsigned", signature: null, payload: null });
      else {
        expect(read.verification).toMatchObject({
          verified: false,
          signature: body.slice(signed),
          payload: fromFields.slice(0, fromFields.length - body.length + signed),
        });
        expect(read.verification!.reason).toBe(body.includes("not base64") ? "malformed_signature" : "unknown_key");
      }
    });
  }

  it("a tag of a tree and of a blob hash like git's too; a tag of a tag is outside the OpenAPI's enum (422)", async () => {
    const repo = emulator.state.git.repository("acme", "web")!;
    const head = repo.commits().at(-1)!;
    const first = await client.git.createTag({
      owner: "acme",
      repo: "web",
      tag: "inner",
      message: "inner",
      object: head.sha,
      type: "commit",
      tagger: { name: "T", email: "t@e", date: "2026-03-10T12:00:00Z" },
    });
    const blobSha = execFileSync("git", ["hash-object", "--stdin"], { input: "# web\n" }).toString().trim();
    const ofTag = { tag: "of-tag", message: "m", object: first.sha, type: "tag", tagger: { name: "T", email: "t@e" } };
    const refused = await fetch(`${emulator.url}/repos/acme/web/git/tags`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.tokens.admin}`, "content-type": "application/json" },
      body: JSON.stringify(ofTag),
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: { field: string }[] }).errors[0]).toMatchObject({ field: "type" });
    for (const [object, type] of [
      [head.tree, "tree"],
      [blobSha, "blob"],
    ] as const) {
      const created = await client.git.createTag({
        owner: "acme",
        repo: "web",
        tag: `of-${type}`,
        message: `of a ${type}`,
        object,
        type,
        tagger: { name: "T", email: "t@e", date: "2026-03-10T12:00:00Z" },
      });
      expect(created.object).toMatchObject({ type, sha: object });
      expect(created.sha).toBe(
        gitHashTag(`object ${object}\ntype ${type}\ntag of-${type}\ntagger T <t@e> 1773144000 +0000\n\nof a ${type}\n`),
      );
    }
  });
});

describe("fixture history", () => {
  it("every default-fixture commit is the commit git makes from the same files, author and date", () => {
    const dir = tempDir("shiplog-git-");
    try {
      for (const org of defaultFixture.orgs ?? []) {
        for (const repoFixture of org.repositories ?? []) {
          const repo = emulator.state.git.repository(org.login, repoFixture.name)!;
          if (repoFixture.empty) {
            expect(repo.empty).toBe(true);
            continue;
          }
          const work = join(dir, `${org.login}-${repoFixture.name}`);
          mkdirSync(work);
          execFileSync("git", ["init", "-q", "-b", "main", work]);
          const commits = repoFixture.git?.commits?.length
            ? repoFixture.git.commits
            : [{ message: "Initial commit", files: { "README.md": `# ${repoFixture.name}\n` } }];
          const emulated = repo.commits();
          expect(emulated).toHaveLength(commits.length);
          commits.forEach((commit, index) => {
            for (const [path, content] of Object.entries(commit.files ?? {})) {
              mkdirSync(dirname(join(work, path)), { recursive: true });
              writeFileSync(join(work, path), content);
            }
            const date = new Date(Date.parse("2026-01-05T09:00:00Z") + index * 3_600_000).toISOString();
            const env = {
              ...process.env,
              GIT_AUTHOR_NAME: "Octo Cat",
              GIT_AUTHOR_EMAIL: "octo@users.noreply.service.example",
              GIT_COMMITTER_NAME: "Octo Cat",
              GIT_COMMITTER_EMAIL: "octo@users.noreply.service.example",
              GIT_AUTHOR_DATE: date,
              GIT_COMMITTER_DATE: date,
            };
            execFileSync("git", ["-C", work, "add", "-A"], { env });
            execFileSync(
              "git",
              ["-C", work, "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", commit.message],
              { env },
            );
            const sha = execFileSync("git", ["-C", work, "rev-parse", "HEAD"]).toString().trim();
            expect(emulated[index]!.sha, `${org.login}/${repoFixture.name} commit ${index}`).toBe(sha);
          });
          expect(repo.head()).toBe(emulated.at(-1)!.sha);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
