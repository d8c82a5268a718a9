// The hostile-file table: every file the controller, the CLI and the action read or write on a user's say-so, given
// a FIFO, /dev/zero, a directory, a symbolic link out (of the workspace, for the action), an oversized file and an
// empty one, as real processes (dist/main.js, dist/cli.js, the action's committed bundle). Each run ends by itself
// (a FIFO is never waited on, /dev/zero never read) with one answer naming the setting and the rule, or, where the
// file is fine (an empty runner file, an empty artifact), does its work. The table is printed.
import { beforeAll, describe, expect, it } from "vitest";
import { printTable } from "./demo/table.js";
import {
  answerOf,
  cell,
  hostileFiles,
  runAction,
  runController,
  runShiplog,
  type HostileFiles,
  type ProgramRun,
} from "./kit/hostile-programs.js";
import { pool } from "./kit/pool.js";

type Result = ProgramRun & { annotations?: { level: string; title?: string; message: string }[] };
const HOSTILE = ["FIFO", "/dev/zero", "directory", "symlink out", "oversized", "empty"] as const;
type Hostile = (typeof HOSTILE)[number];
const DIGEST = `sha256:${"a".repeat(64)}`;

let f: HostileFiles;
beforeAll(() => {
  f = hostileFiles("shiplog-hostile-");
});

/** The hostile file of a kind, for a setting whose bound is `maxBytes` (oversized is past it). */
function hostile(kind: Hostile, maxBytes: number, name: string): string {
  switch (kind) {
    case "FIFO":
      return f.fifo;
    case "/dev/zero":
      return "/dev/zero";
    case "directory":
      return f.directory;
    case "symlink out":
      return f.linkOut;
    case "oversized":
      return f.oversized(`${name}-big`, maxBytes + 1024 * 1024, "x");
    case "empty":
      return f.file(`${name}-empty`, "");
  }
}

interface Row {
  program: "controller" | "cli" | "action";
  setting: string;
  file: Hostile;
  /** Whether the file is fine where it is given (the run then does its work). */
  accepted?: boolean;
  /** The exit code of a refusal (or of the accepted run). */
  exit: number;
  /** What names the setting in the answer. */
  names: RegExp;
  run: () => Promise<Result>;
}

const MiB = 1024 * 1024;

function rows(): Row[] {
  const out: Row[] = [];
  for (const file of HOSTILE) {
    out.push(
      {
        program: "controller",
        setting: "KUBECONFIG",
        file,
        exit: 2,
        names: /--kubeconfig \/ KUBECONFIG: /,
        run: () => runController({ SHIPLOG_TOKEN: "t0ken", KUBECONFIG: hostile(file, 4 * MiB, "kube") }),
      },
      {
        program: "controller",
        setting: "SHIPLOG_TOKEN_FILE",
        file,
        exit: 2,
        names: /--token-file \/ SHIPLOG_TOKEN_FILE: /,
        run: () => runController({ SHIPLOG_TOKEN_FILE: hostile(file, 64 * 1024, "token") }),
      },
      {
        program: "controller",
        setting: "SHIPLOG_APP_PRIVATE_KEY_FILE",
        file,
        exit: 2,
        names: /--app-private-key-file \/ SHIPLOG_APP_PRIVATE_KEY_FILE: /,
        run: () => runController({ SHIPLOG_APP_ID: "1", SHIPLOG_APP_PRIVATE_KEY_FILE: hostile(file, 64 * 1024, "key") }),
      },
      {
        program: "cli",
        setting: "records set-cluster --file",
        file,
        exit: 2,
        names: /^shiplog records set-cluster: --file: /,
        run: () =>
          runShiplog(["records", "set-cluster", "--org", "acme", "--cluster", "c", "--file", hostile(file, 128 * MiB, "cluster")], {
            SHIPLOG_TOKEN: "t0ken",
          }),
      },
      {
        program: "cli",
        setting: "--token-file",
        file,
        exit: 2,
        names: /^shiplog records storage: --token-file: /,
        run: () => runShiplog(["--token-file", hostile(file, 64 * 1024, "token"), "records", "storage", "--org", "acme", DIGEST], {}),
      },
      {
        program: "cli",
        setting: "--app-private-key-file",
        file,
        exit: 2,
        names: /^shiplog records storage: --app-private-key-file: /,
        run: () =>
          runShiplog(
            ["--app-id", "1", "--app-private-key-file", hostile(file, 64 * 1024, "key"), "records", "storage", "--org", "acme", DIGEST],
            {},
          ),
      },
      {
        program: "action",
        setting: "subject-checksums",
        file,
        exit: 1,
        names: /^\[Invalid input: subject-checksums [^\]]+\] subject-checksums: /,
        run: () =>
          runAction(f.dir, { "registry-url": "https://r.example/", "subject-checksums": hostile(file, 4 * MiB, "sums") }, {}, "t0ken"),
      },
    );
    // subject-path: a FIFO, a device, a link out of the workspace are refused; a directory matches no file; an empty
    // artifact is an artifact. (Artifacts have no size bound: oversized does not apply.)
    if (file !== "oversized") {
      const pattern = {
        FIFO: "fifo",
        "/dev/zero": "/dev/zero",
        directory: "directory",
        "symlink out": "link-out",
        empty: "artifact-empty",
      }[file];
      out.push({
        program: "action",
        setting: "subject-path",
        file,
        accepted: file === "empty",
        exit: file === "empty" ? 0 : 1,
        names: /^\[Invalid input: subject-path [^\]]+\] subject-path[: ]/,
        run: () => {
          if (file === "empty") f.file("artifact-empty", "");
          return runAction(f.dir, { "registry-url": "https://r.example/", "subject-path": pattern, "dry-run": "true" }, {}, "t0ken");
        },
      });
    }
    // The runner's files: a refusal is a warning after the work (the step succeeds); an empty file is written.
    for (const variable of ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"]) {
      out.push({
        program: "action",
        setting: variable,
        file,
        accepted: file === "empty",
        exit: 0,
        names: new RegExp(`^\\[(Outputs|Summary) not written\\] .*${variable}: `),
        run: () =>
          runAction(
            f.dir,
            { "registry-url": "https://r.example/", "subject-digest": DIGEST, "subject-name": "app", "dry-run": "true" },
            { [variable]: hostile(file, MiB, variable.toLowerCase()) },
            "t0ken",
          ),
      });
    }
  }
  return out;
}

describe("hostile files", () => {
  it("each hostile file gets one answer naming the setting and the rule, and no run hangs", { timeout: 300_000 }, async () => {
    const all = rows();
    const results = await pool(
      all.map((row) => () => row.run()),
      4,
    );
    const order = { controller: 0, cli: 1, action: 2 };
    const table = all
      .map((row, i) => ({ row, result: results[i]! }))
      .sort((a, b) => order[a.row.program] - order[b.row.program] || a.row.setting.localeCompare(b.row.setting));
    printTable(
      `Hostile files: ${table.length} runs (controller dist/main.js, cli dist/cli.js, the action's bundle)`,
      table.map(({ row, result }) => ({
        program: row.program,
        setting: row.setting,
        "hostile file": row.file,
        exit: result.hung ? "hung" : String(result.code),
        answer: cell(row.accepted && answerOf(result) === "" ? "(accepted: the step did its work)" : answerOf(result), 150),
      })),
    );
    for (const { row, result } of table) {
      const what = `${row.program} ${row.setting} given ${row.file}:\n${result.stdout}${result.stderr}`;
      expect(result.hung, what).toBe(false);
      expect(result.code, what).toBe(row.exit);
      expect(result.stderr, what).not.toMatch(/\n\s+at |bad_alloc/);
      if (row.accepted) {
        expect(answerOf(result), what).toBe("");
        continue;
      }
      const answer = answerOf(result);
      expect(answer, what).toMatch(row.names);
      if (row.program === "action") {
        expect(
          result.annotations?.filter((a) => a.level !== "notice"),
          what,
        ).toHaveLength(1);
        if (row.exit === 0) expect(answer, what).toMatch(/\[rule: [^\]]+\]/);
      } else {
        expect(result.stderr.trim().split("\n"), what).toHaveLength(1);
        expect(answer, what).toMatch(/\[rule: [^\]]+\]/);
      }
    }
  });
});
