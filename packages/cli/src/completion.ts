import { Command, Argument } from "commander";
import { UsageError } from "./cli-errors.js";
import { withExamples, type CommandContext } from "./program.js";

/** Each command path (`records storage`) with its subcommands and options, from the program itself. */
function commandTable(root: Command): { path: string; words: string[]; described: [string, string][] }[] {
  const out: { path: string; words: string[]; described: [string, string][] }[] = [];
  const visit = (command: Command, path: string[]) => {
    const subcommands = command.commands.map((c) => [c.name(), c.description()] as [string, string]);
    const options = [...command.options, ...(path.length > 0 ? [] : [])].flatMap((o) => [o.long, o.short].filter((x): x is string => !!x).map((flag) => [flag, o.description] as [string, string]));
    const described = [...subcommands, ...options, ["--help", "show help"] as [string, string]];
    out.push({ path: path.join(" "), words: described.map(([w]) => w), described });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(root, []);
  return out;
}

/** Shell code that walks the words typed so far and sets `path` to the deepest command they name. */
function findPath(table: { path: string }[], first: string, current: string, words: string): string {
  const known = table.filter((t) => t.path !== "").map((t) => `      "${t.path}") path="${t.path}" ;;`);
  return [
    `  for ((i = ${first}; i < ${current}; i++)); do`,
    `    word="\${${words}[i]}"`,
    '    [[ "$word" == -* ]] && continue',
    '    case "${path:+$path }$word" in',
    ...known,
    "    esac",
    "  done",
  ].join("\n");
}

/** A bash completion script: completes commands, subcommands and options (global ones everywhere). */
export function bashCompletion(root: Command): string {
  const table = commandTable(root);
  const globals = root.options.flatMap((o) => [o.long].filter(Boolean)).join(" ");
  const cases = table.map(({ path, words }) => `    "${path}") words="${words.join(" ")}" ;;`).join("\n");
  return `# bash completion for shiplog; load with: source <(shiplog completion bash)
_shiplog() {
  local cur path="" word words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
${findPath(table, "1", "COMP_CWORD", "COMP_WORDS")}
  case "$path" in
${cases}
  esac
  [[ -n "$path" ]] && words="$words ${globals}"
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _shiplog shiplog
`;
}

/** A zsh completion script (compdef): the same words, each with its description. */
export function zshCompletion(root: Command): string {
  const table = commandTable(root);
  const quote = (text: string) => `'${text.replace(/'/g, "'\\''").replace(/:/g, "\\:")}'`;
  const cases = table
    .map(({ path, described }) => `    "${path}") items=(${described.map(([w, d]) => quote(`${w}:${d.replace(/\s*[({].*$/, "")}`)).join(" ")}) ;;`)
    .join("\n");
  return `#compdef shiplog
# zsh completion for shiplog; load with: source <(shiplog completion zsh)
_shiplog() {
  local path="" word i
  local -a items
${findPath(table, "2", "CURRENT", "words")}
  case "$path" in
${cases}
  esac
  _describe 'shiplog' items
}
if [[ "$funcstack[1]" == "_shiplog" ]]; then _shiplog "$@"; else compdef _shiplog shiplog; fi
`;
}

export function completionCommand(ctx: CommandContext, root: Command): Command {
  return withExamples(
    new Command("completion")
      .description("print a shell completion script for bash or zsh")
      .addArgument(new Argument("<shell>", "bash or zsh").choices(["bash", "zsh"]))
      .action((shell: string) => {
        if (shell !== "bash" && shell !== "zsh") throw new UsageError(`shell must be bash or zsh, got ${JSON.stringify(shell)}`);
        ctx.io.stdout(shell === "bash" ? bashCompletion(root) : zshCompletion(root));
      }),
    "source <(shiplog completion bash)      # or add it to ~/.bashrc",
    "shiplog completion zsh > \"${fpath[1]}/_shiplog\"",
  );
}
