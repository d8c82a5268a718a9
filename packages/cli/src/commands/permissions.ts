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
import { renderTable } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";

function yesNo(value: boolean): string {
  return value ? "yes" : "no";
}

function appliesTo(r: Requirement): string {
  const kinds = [...(r.fineGrained ? ["fine-grained"] : []), ...r.tokenTypes];
  return kinds.length > 0 ? kinds.join(", ") : "-";
}

function classicScopesLine(resolution: PermissionResolution): string {
  if (!resolution.tokenKinds.includes("classic")) return "classic token: not accepted";
  return resolution.classicScopes ? `classic token: ${resolution.classicScopes.join(" or ")}` : "classic token: not stated by the spec";
}

/** `text` (the lines of a table) indented by `by` spaces. */
function indent(text: string, by: number): string[] {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => `${" ".repeat(by)}${line}`);
}

/** The human form of a covered answer, its prose wrapped to `width` columns (a terminal's, else 80). */
export function formatResolution(resolution: PermissionResolution, width = 80): string {
  const tokens = resolution.tokenKinds.map((k) => TOKEN_KIND_TITLES[k]);
  const summary = [
    ["matches", `${resolution.method} ${resolution.template}`],
    ["needs", describeRequirements(resolution)],
    ["tokens", tokens.length === 1 ? `${tokens[0]} only` : tokens.join(", ")],
    ["scopes", classicScopesLine(resolution)],
    ["public", resolution.publicReadable ? "yes: public resources can be read without authentication" : "no: authentication required"],
    ["multi", yesNo(resolution.multi)],
  ];
  const lines = [
    `${resolution.method} ${resolution.path}`,
    ...indent(renderTable(["", ""], summary, { width: width - 2, heading: false }), 2),
  ];
  if (resolution.requirements.length > 0) {
    lines.push("", "  Permissions:");
    const rows = resolution.requirements.map((r) => [
      `${r.title} (${r.permission})`,
      r.scope,
      r.access,
      appliesTo(r),
      r.multi ? "multi" : "-",
    ]);
    // Where each requirement comes from is in the Sources line below, and per requirement in --json.
    lines.push(...indent(renderTable(["permission", "scope", "level", "applies to", "multi"], rows, { width: width - 4 }), 4));
    if (resolution.requirements.length > 1) {
      const how = {
        allOf: "all are needed",
        anyOf: "any one suffices",
        unspecified: "the spec does not say whether all or any one is needed",
      };
      lines.push(`    (${how[resolution.combine]})`);
    }
  }
  if (resolution.notes.length > 0) {
    lines.push(
      "",
      "  Notes:",
      ...indent(
        renderTable(
          ["", ""],
          resolution.notes.map((n) => ["-", n]),
          { width: width - 4, heading: false },
        ),
        4,
      ),
    );
  }
  lines.push("", ...indent(renderTable(["", ""], [["Sources:", resolution.sources.join("; ")]], { width: width - 2, heading: false }), 2));
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
      .action(async (method: string, path: string, _options, command: Command) => {
        const answer = requiredPermissions(method, path);
        if (!answer.covered && (answer.reason === "invalid_method" || answer.reason === "invalid_path")) {
          throw new UsageError(answer.message);
        }
        if (await ctx.printData(command, { data: answer })) {
          // printed
        } else if (answer.covered) ctx.io.stdout(formatResolution(answer, ctx.io.columns));
        else ctx.io.stderr(formatUncovered(answer));
        ctx.exitCode = answer.covered ? EXIT.ok : EXIT.notFound;
      }),
    "shiplog permissions PUT /repos/acme/web/import",
  );
}
