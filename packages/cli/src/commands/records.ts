import { Command, Option } from "commander";
import { MAX_CLUSTER_ENTRIES, type ClusterDeploymentResult, type RequestValidationError, type TransportHooks } from "@shiplog/client";
import { parseRequest, setClusterDeploymentRecordsParams } from "@shiplog/client/schemas";
import { SingleBar } from "cli-progress";
import { digest } from "../arguments.js";
import { UsageError } from "../cli-errors.js";
import { orgScope } from "../connection.js";
import { readJsonFile } from "../json-file.js";
import { renderTable } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";
import { countLine, date, limitOption, orgOf, orgOption } from "./common.js";
import {
  createDeploymentCommand,
  createStorageCommand,
  deploymentMatches,
  STORAGE_HEAD,
  storageMatches,
  storageRow,
  type DeploymentFilters,
  type StorageFilters,
} from "./records-create.js";

/** `shiplog records deployments|storage|set-cluster`. */
export function recordsCommand(ctx: CommandContext): Command {
  const records = withExamples(
    new Command("records").description("deployment and storage records of artifacts"),
    "shiplog records storage --org acme sha256:<digest>",
  );

  records.addCommand(
    withExamples(
      new Command("deployments")
        .description("list where an artifact (by digest) is deployed")
        .argument("<digest>", "the artifact's digest, sha256:<64 hex>", digest)
        .addOption(orgOption())
        .option("--cluster <name>", "only records of this cluster")
        .option("--environment <name>", "only records of this logical environment (production)")
        .option("--physical-environment <name>", "only records of this physical environment (eu-west-1)")
        .option("--deployment-name <name>", "only records of this deployment name")
        .addOption(limitOption("records"))
        .action(async (subjectDigest: string, _options, command: Command) => {
          const options = ctx.options<DeploymentFilters & { org?: string; limit: number }>(command);
          const org = orgOf(options, ctx);
          const client = ctx.client(command, orgScope(org));
          const list = await client.artifacts.listDeploymentRecords({ org, subject_digest: subjectDigest }, { signal: ctx.signal });
          const matching = list.deployment_records.filter((r) => deploymentMatches(r, options));
          const shown = matching.slice(0, options.limit);
          // total_count: the records that match the filters (all of them without filters), of which --limit shows some.
          if (await ctx.printData(command, { data: { ...list, total_count: matching.length, deployment_records: shown }, items: shown }))
            return;
          const rows = shown.map((r) => [
            r.id,
            r.logical_environment,
            r.physical_environment,
            r.cluster,
            r.deployment_name,
            Object.entries(r.tags ?? {})
              .map(([k, v]) => `${k}=${v}`)
              .join(","),
            date(r.updated_at ?? r.created_at),
          ]);
          ctx.io.stdout(renderTable(["id", "environment", "physical", "cluster", "deployment", "tags", "updated"], rows));
          ctx.io.stderr(countLine(shown.length, matching.length, "deployment record", subjectDigest));
        }),
      "shiplog records deployments --org acme sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    ),
  );

  records.addCommand(
    withExamples(
      new Command("storage")
        .description("list where an artifact (by digest) is stored")
        .argument("<digest>", "the artifact's digest, sha256:<64 hex>", digest)
        .addOption(orgOption())
        .option("--registry-url <url>", "only records in this registry (https://ghcr.io)")
        .option("--repository <name>", "only records in this repository of the registry")
        .addOption(new Option("--status <status>", "only records with this status").choices(["active", "eol", "deleted"]))
        .addOption(limitOption("records"))
        .action(async (subjectDigest: string, _options, command: Command) => {
          const options = ctx.options<StorageFilters & { org?: string; limit: number }>(command);
          const org = orgOf(options, ctx);
          const client = ctx.client(command, orgScope(org));
          const list = await client.artifacts.listStorageRecords({ org, subject_digest: subjectDigest }, { signal: ctx.signal });
          const matching = list.storage_records.filter((r) => storageMatches(r, options));
          const shown = matching.slice(0, options.limit);
          if (await ctx.printData(command, { data: { ...list, storage_records: shown }, items: shown })) return;
          ctx.io.stdout(renderTable(STORAGE_HEAD, shown.map(storageRow)));
          ctx.io.stderr(countLine(shown.length, matching.length, "storage record", subjectDigest));
        }),
      "shiplog records storage --org acme sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae --json",
    ),
  );

  records.addCommand(
    withExamples(
      new Command("set-cluster")
        .description(
          `set a cluster's deployment records from a JSON file (sent in chunks of ${MAX_CLUSTER_ENTRIES}, a progress bar on a terminal)`,
        )
        .addOption(orgOption())
        .requiredOption("--cluster <name>", "the cluster")
        .requiredOption("--file <path>", 'JSON: {"logical_environment": "prod", "deployments": [...]} as the cluster call takes it')
        .action(async (_options, command: Command) => {
          const options = ctx.options<{ org?: string; cluster: string; file: string }>(command);
          const body = readClusterFile(options.file);
          const org = orgOf(options, ctx);
          const params = checkClusterParams({ ...body, org, cluster: options.cluster }, options.file);
          const progress = progressBar(ctx, params.deployments.length);
          // The client sends the chunks; each one it has stored moves the bar.
          const client = ctx.client(command, orgScope(org), progress?.hooks);
          let result: ClusterDeploymentResult;
          try {
            progress?.start();
            result = await client.artifacts.setClusterDeploymentRecords(params, { signal: ctx.signal });
          } finally {
            progress?.stop();
          }
          if (await ctx.printData(command, { data: result })) return;
          const errors = result.errors ?? [];
          ctx.io.stdout(
            renderTable(
              ["cluster", "entries", "records", "errors"],
              [[options.cluster, params.deployments.length, result.total_count, errors.length]],
            ),
          );
          for (const error of errors) ctx.io.stderr(`${error.deployment.deployment_name}: ${error.cause}\n`);
          if (errors.length > 0) ctx.exitCode = 1;
        }),
      "shiplog records set-cluster --org acme --cluster prod-eu-1 --file deployments.json",
    ),
  );
  records.addCommand(createStorageCommand(ctx));
  records.addCommand(createDeploymentCommand(ctx));
  return records;
}

/** Most bytes `set-cluster --file` may hold (150,000 entries of about 300 bytes are 45 MB). */
export const MAX_CLUSTER_FILE_BYTES = 128 * 1024 * 1024;

function readClusterFile(path: string): Record<string, unknown> {
  const body = readJsonFile(path, { holds: "the cluster's deployments", maxBytes: MAX_CLUSTER_FILE_BYTES });
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new UsageError(`--file ${path}: expected an object {"logical_environment": ..., "deployments": [...]}`);
  }
  return body as Record<string, unknown>;
}

type ClusterParams = ReturnType<typeof setClusterDeploymentRecordsParams.parse>;

/** The parameters that come from options rather than the file, by the option that gave them. */
const OPTION_FIELDS: Record<string, string> = { org: "--org", cluster: "--cluster" };

/**
 * The whole file is checked before the first chunk goes out: nothing half-applied for a typo in entry 4000. A
 * problem names the option that gave the value (`--cluster`), or the file and the field in it.
 */
function checkClusterParams(input: Record<string, unknown>, file: string): ClusterParams {
  try {
    return parseRequest(setClusterDeploymentRecordsParams, input, "set-cluster");
  } catch (error) {
    const issues = (error as RequestValidationError).issues ?? [];
    const option = issues.find((i) => OPTION_FIELDS[i.field] !== undefined);
    if (option) throw new UsageError(`${OPTION_FIELDS[option.field]}: ${option.message}`);
    const first = issues
      .slice(0, 3)
      .map((i) => `${i.field}: ${i.message}`)
      .join("; ");
    throw new UsageError(`--file ${file}: ${first}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ""}`);
  }
}

/** The cluster route, as the client's transport hooks name it. */
const CLUSTER_ROUTE = "/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}";

/** A bar on the terminal (none when stderr is not one) that moves as the client's chunks are stored. */
function progressBar(ctx: CommandContext, total: number): { hooks: TransportHooks; start(): void; stop(): void } | undefined {
  if (!ctx.io.progressStream) return undefined;
  const bar = new SingleBar({
    stream: ctx.io.progressStream,
    format: "{bar} {value}/{total} entries | {percentage}% | ETA {eta_formatted}",
    hideCursor: true,
    clearOnComplete: false,
  });
  let stored = 0;
  const onResponse: TransportHooks["onResponse"] = ({ method, route, status }) => {
    if (method !== "POST" || route !== CLUSTER_ROUTE || status >= 300) return;
    stored = Math.min(stored + MAX_CLUSTER_ENTRIES, total);
    bar.update(stored);
  };
  return { hooks: { onResponse }, start: () => bar.start(total, 0), stop: () => bar.stop() };
}
