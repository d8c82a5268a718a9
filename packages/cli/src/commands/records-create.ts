// `shiplog records create-storage|create-deployment`: one record from options, or several from a JSON file (an
// object or an array of objects, each as the service's call takes it). Every record is checked before the first one
// is sent; a problem names the option, or the file and the entry.
import { Command, InvalidArgumentError, Option } from "commander";
import {
  DEPLOYMENT_STATUSES,
  RUNTIME_RISKS,
  STORAGE_STATUSES,
  type DeploymentRecord,
  type RequestValidationError,
  type StorageRecord,
} from "@shiplog/client";
import { createDeploymentRecordParams, createStorageRecordParams, parseRequest } from "@shiplog/client/schemas";
import { digest } from "../arguments.js";
import { UsageError } from "../cli-errors.js";
import { orgScope } from "../connection.js";
import { readJsonFile } from "../json-file.js";
import { renderTable } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";
import { date, orgOf, orgOption } from "./common.js";

export interface DeploymentFilters {
  cluster?: string;
  environment?: string;
  physicalEnvironment?: string;
  deploymentName?: string;
}

export function deploymentMatches(r: DeploymentRecord, f: DeploymentFilters): boolean {
  return (
    (f.cluster === undefined || r.cluster === f.cluster) &&
    (f.environment === undefined || r.logical_environment === f.environment) &&
    (f.physicalEnvironment === undefined || r.physical_environment === f.physicalEnvironment) &&
    (f.deploymentName === undefined || r.deployment_name === f.deploymentName)
  );
}

export interface StorageFilters {
  registryUrl?: string;
  repository?: string;
  status?: string;
}

const sameUrl = (a: string | undefined, b: string) => (a ?? "").replace(/\/+$/, "") === b.replace(/\/+$/, "");

export function storageMatches(r: StorageRecord, f: StorageFilters): boolean {
  return (
    (f.registryUrl === undefined || sameUrl(r.registry_url, f.registryUrl)) &&
    (f.repository === undefined || r.repository === f.repository) &&
    (f.status === undefined || r.status === f.status)
  );
}

/**
 * The storage records table's columns: `repository` is the registry's (where the image is stored), named so, since
 * the action's summary shows it beside the code repository that built it.
 */
export const STORAGE_HEAD = ["id", "name", "registry", "registry repository", "status", "updated"] as const;
export const storageRow = (r: StorageRecord) => [r.id, r.name, r.registry_url, r.repository, r.status, date(r.updated_at)];

const deploymentRow = (r: DeploymentRecord) => [
  r.id,
  r.deployment_name,
  r.logical_environment,
  r.cluster,
  r.digest.slice(0, 19),
  date(r.updated_at ?? r.created_at),
];

/** Most bytes a records file may hold (a record is under 2 KiB; thousands fit). */
const MAX_RECORDS_FILE_BYTES = 16 * 1024 * 1024;

/** The JSON a --file holds: one record (an object) or several (an array of objects). */
function readRecordsFile(path: string): Record<string, unknown>[] {
  const body = readJsonFile(path, { holds: "the records", maxBytes: MAX_RECORDS_FILE_BYTES });
  const entries = Array.isArray(body) ? body : [body];
  if (entries.length === 0) throw new UsageError(`--file ${path}: the array is empty: give at least one record`);
  entries.forEach((entry, i) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new UsageError(`--file ${path}: ${Array.isArray(body) ? `entry ${i}` : "the file"} is not an object`);
    }
  });
  return entries as Record<string, unknown>[];
}

/** The body fields an option gives, by the option's name. */
type FlagOf = Record<string, string>;

/** Checks one record as the client would; a problem names the option that gave the field, or the file's entry. */
function check<T>(schema: Parameters<typeof parseRequest>[0], input: Record<string, unknown>, flags: FlagOf, where: string | undefined): T {
  try {
    return parseRequest(schema, input, "record") as T;
  } catch (error) {
    const issue = (error as RequestValidationError).issues?.[0];
    if (!issue) throw error;
    const top = issue.field.replace(/[.[].*$/, "");
    if (where === undefined || top === "org") throw new UsageError(`${flags[top] ?? issue.field}: ${issue.message}`);
    throw new UsageError(`${where}: ${issue.field}: ${issue.message}`);
  }
}

/** `key=value` → a tag; commander collects them. */
function tagPair(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([^=]+)=(.*)$/.exec(value);
  if (!match) throw new InvalidArgumentError(`expected key=value, got ${JSON.stringify(value)}`);
  return { ...previous, [match[1]!]: match[2]! };
}
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The options a record takes from the command line when there is no --file. */
function recordFromOptions(options: Record<string, unknown>, flags: FlagOf): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [field, flag] of Object.entries(flags)) {
    const key = flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (options[key] !== undefined && field !== "org") record[field] = options[key];
  }
  return record;
}

/** With --file, no record field may come from an option too: which one wins would be a guess. */
function refuseMixed(options: Record<string, unknown>, flags: FlagOf): void {
  const given = Object.entries(flags).filter(
    ([field, flag]) =>
      field !== "org" && options[flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] !== undefined,
  );
  if (given.length > 0)
    throw new UsageError(`--file and ${given.map(([, flag]) => flag).join(", ")}: give the record in the file or as options, not both`);
}

const STORAGE_FLAGS: FlagOf = {
  org: "--org",
  name: "--name",
  digest: "--digest",
  version: "--artifact-version",
  registry_url: "--registry-url",
  artifact_url: "--artifact-url",
  path: "--path",
  repository: "--repository",
  status: "--status",
  github_repository: "--github-repository",
};

export function createStorageCommand(ctx: CommandContext): Command {
  return withExamples(
    new Command("create-storage")
      .description("record where an artifact is stored (an upsert): from options, or several from a JSON file")
      .addOption(orgOption())
      .option("--name <name>", "the artifact's name (ghcr.io/acme/web)")
      .option("--digest <digest>", "the artifact's digest, sha256:<64 hex>", digest)
      .option("--artifact-version <version>", "the artifact's version (1.4.0)")
      .option("--registry-url <url>", "the registry's base URL, https://")
      .option("--artifact-url <url>", "the artifact's URL in the registry, https://")
      .option("--path <path>", "the artifact's path in the registry")
      .option("--repository <name>", "the repository in the registry")
      .addOption(new Option("--status <status>", "the record's status").choices(STORAGE_STATUSES))
      .option("--github-repository <name>", "the code repository in the organization that built it (web)")
      .option("--file <path>", "JSON: one record or an array of records, as the storage-record call takes them (without org)")
      .action(async (_options, command: Command) => {
        const options = ctx.options<Record<string, unknown> & { org?: string; file?: string }>(command);
        const org = orgOf(options, ctx);
        if (options.file !== undefined) refuseMixed(options, STORAGE_FLAGS);
        const inputs = options.file !== undefined ? readRecordsFile(options.file) : [recordFromOptions(options, STORAGE_FLAGS)];
        const params = inputs.map((input, i) =>
          check<Parameters<ReturnType<CommandContext["client"]>["artifacts"]["createStorageRecord"]>[0]>(
            createStorageRecordParams,
            { ...input, org },
            STORAGE_FLAGS,
            options.file === undefined ? undefined : `--file ${options.file}${inputs.length > 1 ? ` entry ${i}` : ""}`,
          ),
        );
        const client = ctx.client(command, orgScope(org));
        const records: StorageRecord[] = [];
        for (const p of params) {
          const answer = await client.artifacts.createStorageRecord({ ...p, return_records: true }, { signal: ctx.signal });
          records.push(...answer.storage_records);
        }
        if (await ctx.printData(command, { data: { total_count: records.length, storage_records: records }, items: records })) return;
        ctx.io.stdout(renderTable(STORAGE_HEAD, records.map(storageRow)));
        ctx.io.stderr(`${params.length} storage record${params.length === 1 ? "" : "s"} written\n`);
      }),
    "shiplog records create-storage --org acme --name ghcr.io/acme/web --digest sha256:<digest> --registry-url https://ghcr.io --github-repository web",
    "shiplog records create-storage --org acme --file storage-records.json",
  );
}

const DEPLOYMENT_FLAGS: FlagOf = {
  org: "--org",
  name: "--name",
  digest: "--digest",
  version: "--artifact-version",
  status: "--status",
  logical_environment: "--environment",
  physical_environment: "--physical-environment",
  cluster: "--cluster",
  deployment_name: "--deployment-name",
  tags: "--tag",
  runtime_risks: "--runtime-risk",
  github_repository: "--github-repository",
};

export function createDeploymentCommand(ctx: CommandContext): Command {
  return withExamples(
    new Command("create-deployment")
      .description("record where an artifact runs (an upsert): from options, or several from a JSON file")
      .addOption(orgOption())
      .option("--name <name>", "the artifact's name (ghcr.io/acme/web)")
      .option("--digest <digest>", "the artifact's digest, sha256:<64 hex>", digest)
      .option("--artifact-version <version>", "the artifact's version (1.4.0)")
      .addOption(new Option("--status <status>", "deployed or decommissioned (default: deployed)").choices(DEPLOYMENT_STATUSES))
      .option("--environment <name>", "the logical environment (production)")
      .option("--physical-environment <name>", "the physical environment (eu-west-1)")
      .option("--cluster <name>", "the cluster")
      .option("--deployment-name <name>", "the deployment's name, unique in its cluster and environments (shop/web)")
      .option("--tag <key=value>", "a tag (repeat for more, at most 5)", tagPair)
      .addOption(new Option("--runtime-risk <risk>", "a runtime risk (repeat for more)").choices(RUNTIME_RISKS).argParser(collect))
      .option("--github-repository <name>", "the code repository in the organization that built it (web)")
      .option("--file <path>", "JSON: one record or an array of records, as the deployment-record call takes them (without org)")
      .action(async (_options, command: Command) => {
        const options = ctx.options<Record<string, unknown> & { org?: string; file?: string }>(command);
        const org = orgOf(options, ctx);
        if (options.file !== undefined) refuseMixed(options, DEPLOYMENT_FLAGS);
        const inputs =
          options.file !== undefined
            ? readRecordsFile(options.file)
            : [{ status: "deployed", ...recordFromOptions(options, DEPLOYMENT_FLAGS) }];
        const params = inputs.map((input, i) =>
          check<Parameters<ReturnType<CommandContext["client"]>["artifacts"]["createDeploymentRecord"]>[0]>(
            createDeploymentRecordParams,
            { ...input, org },
            DEPLOYMENT_FLAGS,
            options.file === undefined ? undefined : `--file ${options.file}${inputs.length > 1 ? ` entry ${i}` : ""}`,
          ),
        );
        const client = ctx.client(command, orgScope(org));
        const records: DeploymentRecord[] = [];
        for (const p of params) {
          const answer = await client.artifacts.createDeploymentRecord({ ...p, return_records: true }, { signal: ctx.signal });
          records.push(...answer.deployment_records);
        }
        if (await ctx.printData(command, { data: { total_count: records.length, deployment_records: records }, items: records })) return;
        ctx.io.stdout(renderTable(["id", "deployment", "environment", "cluster", "digest", "updated"], records.map(deploymentRow)));
        ctx.io.stderr(`${params.length} deployment record${params.length === 1 ? "" : "s"} written\n`);
      }),
    "shiplog records create-deployment --org acme --name ghcr.io/acme/web --digest sha256:<digest> --environment production --cluster prod-eu-1 --deployment-name shop/web",
    "shiplog records create-deployment --org acme --file deployment-records.json",
  );
}
