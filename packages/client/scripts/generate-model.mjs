// Writes src/model/: the declared types of every request and answer, printed from the zod schemas of src/schemas/
// (and the registry's operations), so a public signature names a plain interface and a program that imports the
// client type-checks none of zod's types. The schemas stay the one source: `--check` (run by the tests) fails
// when a written file differs from what the schemas give.
//   node packages/client/scripts/generate-model.mjs           write them
//   node packages/client/scripts/generate-model.mjs --check   exit 1 naming what is stale
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const schemasDir = join(packageDir, "src/schemas");
/** The schema modules, in the order their types refer to each other. */
const MODULES = ["common", "users", "artifact-metadata", "git", "notifications", "activity", "issue-events", "source-imports", "apps"];
/** Types written by hand in src/model/ (the open enumerations), referred to by name. */
const HAND_WRITTEN = { UnknownValue: "open-enum", OpenEnum: "open-enum", UnknownEventType: "open-enum", EventFeed: "event-feed" };

/** The model's files, by path relative to the package: their text. */
export function generateModel() {
  const files = MODULES.map((m) => join(schemasDir, `${m}.ts`));
  // The registry's operations, through its own type helpers, from a module that exists only in this program.
  const operationsFile = join(packageDir, "src/endpoints/__operations__.ts");
  const operationsText = `import type { ItemOf, ListOperationId, OperationId, ParamsOf, ResultOf } from "./registry.js";
export type All = { [K in OperationId]: { params: ParamsOf<K>; result: ResultOf<K>; item: K extends ListOperationId ? ItemOf<K> : never } };`;
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, ...rest) =>
    name === operationsFile ? ts.createSourceFile(name, operationsText, ts.ScriptTarget.ES2022, true) : getSourceFile(name, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === operationsFile || fileExists(name);
  const program = ts.createProgram([...files, operationsFile], options, host);
  const checker = program.getTypeChecker();
  /** Each exported alias's type -> [name, module]. */
  const named = new Map();
  const aliases = [];
  for (const [i, file] of files.entries()) {
    const source = program.getSourceFile(file);
    for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(source))) {
      if (!(symbol.flags & ts.SymbolFlags.TypeAlias)) continue;
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      if (HAND_WRITTEN[symbol.name]) continue;
      if (!named.has(type)) named.set(type, [symbol.name, MODULES[i]]);
      aliases.push({ symbol, type, module: MODULES[i] });
    }
  }
  /** A union named by an alias, by its members: the same union reached another way is not the same object. */
  const unionKey = (t) =>
    t.types
      .map((m) => m.id)
      .sort((a, b) => a - b)
      .join(",");
  const namedUnions = new Map([...named].filter(([t]) => t.flags & ts.TypeFlags.Union).map(([t, n]) => [unionKey(t), n]));
  const out = new Map(MODULES.map((m) => [m, { imports: new Map(), body: [] }]));

  function print(type, module, top, indent) {
    const refer = (name, from) => {
      if (from !== module) {
        const imports = out.get(module).imports;
        if (!imports.has(from)) imports.set(from, new Set());
        imports.get(from).add(name);
      }
      return name;
    };
    if (!top && named.has(type)) return refer(...named.get(type));
    if (!top && type.flags & ts.TypeFlags.Union && namedUnions.has(unionKey(type))) return refer(...namedUnions.get(unionKey(type)));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text TypeScript gives of a template literal type
    if (type.flags & ts.TypeFlags.TemplateLiteral && checker.typeToString(type) === "`${string}\\0`")
      return refer("UnknownEventType", "open-enum");
    const alias = type.aliasSymbol?.name;
    if (alias && HAND_WRITTEN[alias]) {
      const args = (type.aliasTypeArguments ?? []).map((a) => print(a, module, false, indent));
      return refer(alias, HAND_WRITTEN[alias]) + (args.length ? `<${args.join(" | ")}>` : "");
    }
    const f = type.flags;
    if (f & ts.TypeFlags.Union) {
      const members = type.types;
      const hasTrue = members.some((m) => m.flags & ts.TypeFlags.BooleanLiteral && checker.typeToString(m) === "true");
      const hasFalse = members.some((m) => m.flags & ts.TypeFlags.BooleanLiteral && checker.typeToString(m) === "false");
      const parts = [];
      // An open enumeration: its known names inside OpenEnum<...>, anything else (null, a pattern) beside it.
      if (members.some(isUnknownValue)) {
        const known = members.filter((m) => m.flags & ts.TypeFlags.StringLiteral);
        const rest = members.filter((m) => !(m.flags & ts.TypeFlags.StringLiteral) && !isUnknownValue(m));
        const open = `${refer("OpenEnum", "open-enum")}<${known.map((m) => checker.typeToString(m)).join(" | ")}>`;
        return [...rest.map((m) => print(m, module, false, indent)), open].join(" | ");
      }
      for (const m of members) {
        if (m.flags & ts.TypeFlags.BooleanLiteral && hasTrue && hasFalse) {
          if (!parts.includes("boolean")) parts.push("boolean");
          continue;
        }
        parts.push(print(m, module, false, indent));
      }
      return parts.join(" | ");
    }
    if (f & ts.TypeFlags.Intersection) {
      if (isUnknownValue(type)) return refer("UnknownValue", "open-enum");
      return type.types.map((m) => wrap(print(m, module, false, indent))).join(" & ");
    }
    if (f & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral | ts.TypeFlags.TemplateLiteral))
      return checker.typeToString(type);
    if (
      f &
      (ts.TypeFlags.String |
        ts.TypeFlags.Number |
        ts.TypeFlags.Boolean |
        ts.TypeFlags.Null |
        ts.TypeFlags.Undefined |
        ts.TypeFlags.Unknown |
        ts.TypeFlags.Never |
        ts.TypeFlags.Any |
        ts.TypeFlags.Void |
        ts.TypeFlags.BigInt)
    ) {
      return checker.typeToString(type);
    }
    if (checker.isArrayType(type)) return `${wrap(print(checker.getTypeArguments(type)[0], module, false, indent))}[]`;
    if (checker.isTupleType(type))
      return `[${checker
        .getTypeArguments(type)
        .map((a) => print(a, module, false, indent))
        .join(", ")}]`;
    if (f & ts.TypeFlags.Object) {
      if (type.getCallSignatures().length > 0) throw new Error(`a function type in a schema type: ${checker.typeToString(type)}`);
      const properties = checker.getPropertiesOfType(type);
      const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
      // A loose object's index signature is left out: unknown fields are kept at run time, but a name the type
      // does not declare must not compile (`event.nope`).
      if (properties.length === 0) return index ? `Record<string, ${print(index.type, module, false, indent)}>` : "Record<string, never>";
      const pad = "  ".repeat(indent + 1);
      const lines = properties.map((p) => {
        const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
        let t = checker.getTypeOfSymbol(p);
        if (optional && t.flags & ts.TypeFlags.Union) t = checker.getNonNullableType(t) === t ? t : removeUndefined(t);
        const doc = ts.displayPartsToString(p.getDocumentationComment(checker)).trim();
        const key = /^[A-Za-z_$][\w$]*$/.test(p.name) ? p.name : JSON.stringify(p.name);
        return `${doc ? `${pad}/** ${doc.replace(/\s*\n\s*/g, " ")} */\n` : ""}${pad}${key}${optional ? "?" : ""}: ${print(t, module, false, indent + 1)};`;
      });
      return `{\n${lines.join("\n")}\n${"  ".repeat(indent)}}`;
    }
    throw new Error(`cannot print ${checker.typeToString(type)} (flags ${f})`);
  }
  function removeUndefined(t) {
    const kept = t.types.filter((m) => !(m.flags & ts.TypeFlags.Undefined));
    if (kept.length === t.types.length) return t;
    return kept.length === 1 ? kept[0] : { ...t, types: kept, flags: t.flags };
  }
  function isUnknownValue(t) {
    return (
      !!(t.flags & ts.TypeFlags.Intersection) &&
      t.types.some((m) => checker.getPropertiesOfType(m).some((p) => p.name === "__unknownEnumValue"))
    );
  }
  const wrap = (s) => (/[|&]/.test(s) && !s.startsWith("{") ? `(${s})` : s);

  for (const { symbol, type, module } of aliases) {
    const decl = symbol.declarations[0];
    const jsDoc = ts
      .getJSDocCommentsAndTags(decl)
      .map((d) => d.getText())
      .join("\n");
    // An alias of a schema's type takes the schema's doc comment when it has none of its own.
    let doc = jsDoc;
    if (!doc && ts.isTypeAliasDeclaration(decl)) {
      const query = decl.type.getText().match(/typeof (\w+)>/);
      const schema =
        query && checker.getExportsOfModule(checker.getSymbolAtLocation(decl.getSourceFile())).find((s) => s.name === query[1]);
      const schemaDecl = schema?.valueDeclaration && ts.getJSDocCommentsAndTags(schema.valueDeclaration.parent.parent);
      doc = schemaDecl?.map((d) => d.getText()).join("\n") ?? "";
    }
    const body = print(type, module, true, 0);
    // A type literal rather than an interface: like the schema's own type, it is assignable to
    // Record<string, unknown> (an interface is not), while a name it does not declare still does not compile.
    const text = `export type ${symbol.name} = ${body};`;
    out.get(module).body.push(`${doc ? `${doc}\n` : ""}${text}`);
  }

  // The registry's operations: each one's parameters, answer and (for lists) item.
  const operationsSource = program.getSourceFile(operationsFile);
  const all = checker.getDeclaredTypeOfSymbol(checker.getExportsOfModule(checker.getSymbolAtLocation(operationsSource))[0]);
  const ops = { imports: new Map(), body: [] };
  out.set("operations", ops);
  const opLines = [];
  for (const op of checker.getPropertiesOfType(all)) {
    const entry = checker.getTypeOfSymbol(op);
    const field = (name) => checker.getTypeOfSymbol(checker.getPropertyOfType(entry, name));
    const item = field("item");
    const fields = [
      `params: ${print(field("params"), "operations", false, 2)}`,
      `result: ${print(field("result"), "operations", false, 2)}`,
    ];
    if (!(item.flags & ts.TypeFlags.Never)) fields.push(`item: ${print(item, "operations", false, 2)}`);
    opLines.push(`  ${JSON.stringify(op.name)}: {\n${fields.map((x) => `    ${x};`).join("\n")}\n  };`);
  }
  ops.body.push(
    `/** Every operation of the registry by its id: its parameters, its answer, and the item of a list. */\nexport type Operations = {\n${opLines.join("\n")}\n};`,
  );

  const result = new Map();
  for (const [module, { imports, body }] of out) {
    if (body.length === 0) continue;
    const head = [
      "// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.",
      ...[...imports]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([from, names]) => `import type { ${[...names].sort().join(", ")} } from "./${from}.js";`),
    ];
    const path = `src/model/${module}.ts`;
    result.set(path, format(path, `${head.join("\n")}\n\n${body.join("\n\n")}\n`));
  }
  return result;
}

/** The text as the repository's formatter writes it (Biome, as `pnpm lint` checks it). */
function format(path, text) {
  const biome = join(packageDir, "../../node_modules/.bin/biome");
  return execFileSync(biome, ["format", `--stdin-file-path=${join(packageDir, path)}`], { input: text, encoding: "utf8" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const stale = [];
  for (const [path, text] of generateModel()) {
    const full = join(packageDir, path);
    let current;
    try {
      current = readFileSync(full, "utf8");
    } catch {}
    if (current === text) continue;
    if (check) stale.push(path);
    else writeFileSync(full, text);
  }
  if (stale.length > 0) {
    console.error(`stale, run node packages/client/scripts/generate-model.mjs: ${stale.join(", ")}`);
    process.exit(1);
  }
}
