// One run of the bundled action for the demo: as the runner starts it, against the emulator, making an annotated
// tag on acme/web and storage records for two build outputs found by glob. Returns what it created.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBundledAction, type LocalRunResult } from "../../packages/action/test/local-runner.js";

export interface ActionStepResult {
  exitCode: number;
  /** The action's outputs (tag-sha, tag-ref, tag-outcome, storage-records). */
  outputs: Record<string, string>;
  /** The storage records as the service returned them. */
  storageRecords: Record<string, unknown>[];
  /** The job summary (markdown) the runner would show. */
  summary: string;
  annotations: LocalRunResult["annotations"];
  wallMs: number;
}

/** Runs `node packages/action/dist/index.js` once against the emulator: tag v1.0.0 plus one record per build output. */
export async function runActionStep(emulatorUrl: string, token: string, tag = "v1.0.0"): Promise<ActionStepResult> {
  const headResponse = await fetch(`${emulatorUrl}/repos/acme/web/git/ref/heads/main`, { headers: { authorization: `Bearer ${token}` } });
  if (!headResponse.ok) throw new Error(`cannot read acme/web's main branch: ${headResponse.status}`);
  const head = ((await headResponse.json()) as { object: { sha: string } }).object.sha;

  const workspace = await mkdtemp(join(tmpdir(), "shiplog-demo-"));
  try {
    await mkdir(join(workspace, "out"));
    await writeFile(join(workspace, "out", "web-1.0.0.tgz"), "demo web tarball\n");
    await writeFile(join(workspace, "out", "web-1.0.0.sbom.json"), '{"spdxVersion":"SPDX-2.3"}\n');
    const result = await runBundledAction({
      inputs: {
        token,
        tag,
        "tag-message": `Release ${tag}\n\nBuilt and recorded by the shiplog action.`,
        "tagger-name": "shiplog demo",
        "tagger-email": "demo@shiplog.example",
        "subject-path": "out/*",
        "subject-version": tag.replace(/^v/, ""),
        "registry-url": "https://npm.pkg.example/",
        "artifact-url": "https://npm.pkg.example/acme/web/-/web-1.0.0.tgz",
      },
      env: { GITHUB_SHA: head, GITHUB_REPOSITORY: "acme/web", GITHUB_API_URL: emulatorUrl },
      cwd: workspace,
    });
    return {
      exitCode: result.exitCode,
      outputs: result.outputs,
      storageRecords: JSON.parse(result.outputs["storage-records"] ?? "[]") as Record<string, unknown>[],
      summary: result.summary,
      annotations: result.annotations,
      wallMs: result.wallMs,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
