import { Command } from "commander";
import {
  TOKEN_KIND_TITLES,
  describeRequirements,
  requiredPermissions,
  type PermissionResolution,
  type Requirement,
  type UncoveredCall,
} from "@shiplog/client/permissions";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import { withExamples, type CommandContext } from "../program.js";

function yesNo(value: boolean): string {
  return value ? "yes" : "no";
}

/** Lays rows out in columns separated by two spaces. */
function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "));
}

function appliesTo(r: Requirement): string {
  const kinds = [...(r.fineGrained ? ["fine-grained"] : []), ...r.tokenTypes];
  return kinds.length > 0 ? kinds.join(", ") : "-";
}

function classicScopesLine(resolution: PermissionResolution): string {
  if (!resolution.tokenKinds.includes("classic")) return "classic token: not accepted";
  return resolution.classicScopes ? `classic token: ${resolution.classicScopes.join(" or ")}` : "classic token: not stated by the spec";
}

/** The human form of a covered answer. */
export function formatResolution(resolution: PermissionResolution): string {
  const tokens = resolution.tokenKinds.map((k) => TOKEN_KIND_TITLES[k]);
  const lines = [
    `${resolution.method} ${resolution.path}`,
    ...table([
      ["matches", `${resolution.method} ${resolution.template}`],
      ["needs", describeRequirements(resolution)],
      ["tokens", tokens.length === 1 ? `${tokens[0]} only` : tokens.join(", ")],
      ["scopes", classicScopesLine(resolution)],
      ["public", resolution.publicReadable ? "yes: public resources can be read without authentication" : "no: authentication required"],
      ["multi", yesNo(resolution.multi)],
    ]).map((line) => `  ${line}`),
  ];
  if (resolution.requirements.length > 0) {
    lines.push("", "  Permissions:");
    const rows = [
      ["PERMISSION", "SCOPE", "LEVEL", "APPLIES TO", "MULTI", "SOURCE"],
      ...resolution.requirements.map((r) => [
        `${r.title} (${r.permission})`,
        r.scope,
        r.access,
        appliesTo(r),
        r.multi ? "multi" : "-",
        r.sources.join("; "),
      ]),
    ];
    lines.push(...table(rows).map((line) => `    ${line}`));
    if (resolution.requirements.length > 1) {
      const how = { allOf: "all are needed", anyOf: "any one suffices", unspecified: "the spec does not say whether all or any one is needed" };
      lines.push(`    (${how[resolution.combine]})`);
    }
  }
  if (resolution.notes.length > 0) {
    lines.push("", "  Notes:", ...resolution.notes.map((n) => `    - ${n}`));
  }
  lines.push("", `  Sources: ${resolution.sources.join("; ")}`);
  return `${lines.join("\n")}\n`;
}

/** The human form of a call the matrix does not cover. */
export function formatUncovered(answer: UncoveredCall): string {
  return `shiplog permissions: ${answer.message}\n`;
}

export function permissionsCommand(ctx: CommandContext): Command {
  return withExamples(
    new Command("permissions")
      .summary("what a call needs: permissions, token types and scopes (no credentials or network needed)")
      .description(
        "what does this call need? Resolves a concrete call against the service's permission matrix: the fine-grained " +
          "permissions and access levels, the token types accepted, the classic token scopes, and whether public " +
          "resources can be read without authentication (no token or network needed)",
      )
      .argument("<method>", "GET, POST, PUT, PATCH or DELETE (any case)")
      .argument("<path>", "a concrete path such as /repos/acme/web/git/tags, or a full URL")
      .action((method: string, path: string, _options, command: Command) => {
        const options = ctx.options(command);
        const answer = requiredPermissions(method, path);
        if (!answer.covered && (answer.reason === "invalid_method" || answer.reason === "invalid_path")) {
          throw new UsageError(answer.message);
        }
        if (options.json) ctx.io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
        else if (answer.covered) ctx.io.stdout(formatResolution(answer));
        else ctx.io.stderr(formatUncovered(answer));
        ctx.exitCode = answer.covered ? EXIT.ok : EXIT.notFound;
      }),
    "shiplog permissions PUT /repos/acme/web/import",
  );
}
