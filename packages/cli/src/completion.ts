// Shell completion for bash, zsh and fish, generated from the program's own commands, options and arguments, so it can
// never disagree with them. Completes commands and subcommands, each command's options and the global ones, option
// values with choices (`--derived-tags major-minor`), file names where a value is a path, and positional choices.
import { Argument, Command, type Option } from "commander";
import { UsageError } from "./cli-errors.js";
import { withExamples, type CommandContext } from "./program.js";

interface OptionSpec {
  flags: string[];
  description: string;
  /** What the option takes, if anything: its placeholder, its choices, and whether it is a file's path. */
  value?: { name: string; choices?: readonly string[]; file: boolean };
}

interface CommandSpec {
  /** The words that name the command (`["records", "storage"]`); empty for the root. */
  path: string[];
  subcommands: { name: string; description: string }[];
  /** The command's own options, then the global ones. */
  options: OptionSpec[];
  args: { name: string; choices?: readonly string[]; variadic: boolean }[];
}

const HELP: OptionSpec = { flags: ["-h", "--help"], description: "display help" };

/** A description short enough for a completion menu: no parentheses, up to its first sentence's end. */
const brief = (text: string) =>
  text
    .replace(/\s*\([^)]*\)/g, "")
    .replace(/[.;?:]\s.*$/s, "")
    .trim();

function optionSpec(option: Option): OptionSpec {
  // An optional value (`--json [fields]`) is completed as a flag: the next word is most often a command or an argument.
  const placeholder = option.optional ? undefined : /<([^>]+)>/.exec(option.flags)?.[1];
  const flags = [option.short, option.long].filter((f): f is string => !!f);
  if (placeholder === undefined) return { flags, description: brief(option.description) };
  const choices = option.argChoices;
  const value = { name: placeholder, ...(choices && { choices }), file: placeholder === "path" };
  return { flags, description: brief(option.description), value };
}

/** Every command of the program, root first, with what completes after it; and the global options. */
export function completionSpecs(root: Command): { commands: CommandSpec[]; globals: OptionSpec[] } {
  const globals = root.options.filter((o) => o.long !== "--version").map(optionSpec);
  const commands: CommandSpec[] = [];
  const visit = (command: Command, path: string[]) => {
    commands.push({
      path,
      subcommands: command.commands.map((c) => ({ name: c.name(), description: brief(c.summary() || c.description()) })),
      options: command === root ? [...root.options.map(optionSpec), HELP] : [...command.options.map(optionSpec), HELP],
      args: command.registeredArguments.map((a: Argument) => ({
        name: a.name(),
        ...(a.argChoices && { choices: a.argChoices }),
        variadic: a.variadic,
      })),
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(root, []);
  return { commands, globals };
}

/** A command's options and, below the root, the global ones (commander takes them after a subcommand too). */
const allOptions = (spec: CommandSpec, globals: OptionSpec[]) => (spec.path.length === 0 ? spec.options : [...spec.options, ...globals]);

const longFlags = (options: OptionSpec[]) => options.flatMap((o) => o.flags.filter((f) => f.startsWith("--")));

/** A bash completion script (bash 4 or later). */
export function bashCompletion(root: Command): string {
  const { commands, globals } = completionSpecs(root);
  const paths = commands.filter((s) => s.path.length > 0).map((s) => `"${s.path.join(" ")}"`);
  const valued = [...new Set([...globals, ...commands.flatMap((s) => s.options)].filter((o) => o.value).flatMap((o) => o.flags))];
  const valueCase = (keys: string[], value: NonNullable<OptionSpec["value"]>) => {
    const reply = value.choices
      ? `COMPREPLY=($(compgen -W "${value.choices.join(" ")}" -- "$cur"))`
      : value.file
        ? 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))'
        : "COMPREPLY=()";
    return `    ${keys.join("|")}) ${reply}; return ;;`;
  };
  const valueCases = [
    ...commands.slice(1).flatMap((spec) =>
      spec.options
        .filter((o) => o.value)
        .map((o) =>
          valueCase(
            o.flags.map((f) => `"${spec.path.join(" ")} ${f}"`),
            o.value!,
          ),
        ),
    ),
    ...globals
      .filter((o) => o.value)
      .map((o) =>
        valueCase(
          o.flags.map((f) => `*" ${f}"`),
          o.value!,
        ),
      ),
  ];
  const wordCases = commands.map((spec) => {
    const positional = spec.args.flatMap((a, i) => (a.choices ? [`      ${a.variadic ? "*" : i}) words="${a.choices.join(" ")}" ;;`] : []));
    const words = spec.subcommands.length > 0 ? `words="${spec.subcommands.map((c) => c.name).join(" ")}"` : "";
    const byPosition = positional.length > 0 ? `case "$npos" in\n${positional.join("\n")}\n    esac` : "";
    return `    "${spec.path.join(" ")}") ${words || byPosition || ":"} ;;`;
  });
  const optionCases = commands.map((spec) => `    "${spec.path.join(" ")}") words="${longFlags(allOptions(spec, globals)).join(" ")}" ;;`);
  return `# bash completion for shiplog; load with: source <(shiplog completion bash)
_shiplog() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" word words="" skip="" npos=0 i
  # bash splits --option=value at "=": the option is then one or two words back.
  if [[ "$cur" == "=" ]]; then cur=""
  elif [[ "$prev" == "=" ]]; then prev="\${COMP_WORDS[COMP_CWORD-2]}"
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == "=" ]] && { skip=1; continue; }
    [[ -n "$skip" ]] && { skip=""; continue; }
    case "$word" in
      ${valued.join("|")}) skip=1; continue ;;
      -*) continue ;;
    esac
    case "\${cmd:+$cmd }$word" in
      ${paths.join("|")}) cmd="\${cmd:+$cmd }$word" ;;
      *) ((npos++)) ;;
    esac
  done
  # After an option that takes a value: its choices, a file name, or nothing.
  case "$cmd $prev" in
${valueCases.join("\n")}
  esac
  if [[ "$cur" == -* ]]; then
    case "$cmd" in
${optionCases.join("\n")}
    esac
  else
    case "$cmd" in
${wordCases.join("\n")}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _shiplog shiplog
`;
}

/** Single-quoted for zsh. */
const zq = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
/** Escaped for an _arguments description in brackets, or a message between colons. */
const zdesc = (text: string) => text.replace(/[\\[\]:]/g, "\\$&");
const zname = (path: string[]) => ["_shiplog", ...path].join("_").replace(/[^A-Za-z0-9_]/g, "_");

function zshOption(option: OptionSpec): string[] {
  return option.flags.map((flag) => {
    if (!option.value) return zq(`${flag}[${zdesc(option.description)}]`);
    const action = option.value.choices ? `(${option.value.choices.join(" ")})` : option.value.file ? "_files" : " ";
    // `--opt=` takes the value in the next word or after "=", as commander does; short flags take the next word.
    return zq(`${flag}${flag.startsWith("--") ? "=" : ""}[${zdesc(option.description)}]:${zdesc(option.value.name)}:${action}`);
  });
}

function zshFunction(spec: CommandSpec, globals: OptionSpec[]): string {
  const options = allOptions(spec, globals).flatMap(zshOption);
  if (spec.subcommands.length === 0) {
    // A free-text argument only names itself when the word is not an option (zsh's _guard idiom): offered beside an
    // option being typed, it would keep `--o` from completing to `--org`.
    const args = spec.args.map((a, i) => {
      const action = a.choices ? `(${a.choices.join(" ")})` : `_guard "^-*" ${a.name.replace(/[^\w.-]/g, "")}`;
      return zq(`${a.variadic ? "*" : i + 1}:${zdesc(a.name)}:${action}`);
    });
    return `${zname(spec.path)}() {\n  _arguments -s ${[...options, ...args].join(" \\\n    ")}\n}`;
  }
  const items = spec.subcommands.map((c) => zq(`${c.name}:${c.description}`)).join(" ");
  const dispatch = spec.subcommands.map((c) => `        ${c.name}) ${zname([...spec.path, c.name])} ;;`).join("\n");
  return `${zname(spec.path)}() {
  local curcontext="$curcontext" state line
  local -a commands=(${items})
  _arguments -C -s ${options.join(" \\\n    ")} \\
    '1:command:->command' '*::argument:->argument'
  case $state in
    command) _describe -t commands ${zq(`${["shiplog", ...spec.path].join(" ")} command`)} commands ;;
    argument)
      case $line[1] in
${dispatch}
      esac ;;
  esac
}`;
}

/** A zsh completion script: one `_arguments` function per command, as zsh's own completions are written. */
export function zshCompletion(root: Command): string {
  const { commands, globals } = completionSpecs(root);
  const functions = commands.reverse().map((spec) => zshFunction(spec, globals));
  return `#compdef shiplog
# zsh completion for shiplog; load with: source <(shiplog completion zsh) (after compinit),
# or save it as _shiplog in a directory of $fpath.
${functions.join("\n\n")}

if [[ "$funcstack[1]" == "_shiplog" ]]; then _shiplog "$@"; else compdef _shiplog shiplog; fi
`;
}

/** Single-quoted for fish (a backslash and a quote escaped). */
const fq = (text: string) => `'${text.replace(/[\\']/g, "\\$&")}'`;

function fishOption(option: OptionSpec, condition: string | undefined): string {
  const flags = option.flags.map((f) => (f.startsWith("--") ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(" ");
  const value = option.value
    ? option.value.choices
      ? ` -x -a ${fq(option.value.choices.join(" "))}`
      : option.value.file
        ? " -r -F"
        : " -x"
    : "";
  return `complete -c shiplog${condition ? ` -n ${fq(condition)}` : ""} ${flags}${value} -d ${fq(option.description)}`;
}

/**
 * A fish completion script: `__shiplog_command` finds the command typed so far (skipping options and their values),
 * and each completion is conditional on it, as fish's own completions are written.
 */
export function fishCompletion(root: Command): string {
  const { commands, globals } = completionSpecs(root);
  const paths = commands.filter((s) => s.path.length > 0).map((s) => s.path.join(" "));
  const valued = [...new Set([...globals, ...commands.flatMap((s) => s.options)].filter((o) => o.value).flatMap((o) => o.flags))];
  const lines: string[] = [];
  for (const spec of commands) {
    const at = `__shiplog_at ${fq(spec.path.join(" "))}`;
    for (const sub of spec.subcommands) lines.push(`complete -c shiplog -n ${fq(at)} -a ${fq(sub.name)} -d ${fq(sub.description)}`);
    const own = spec.path.length === 0 ? [] : spec.options.filter((o) => o !== HELP);
    for (const option of own) lines.push(fishOption(option, at));
    for (const arg of spec.args) if (arg.choices) lines.push(`complete -c shiplog -n ${fq(at)} -a ${fq(arg.choices.join(" "))}`);
  }
  return `# fish completion for shiplog; load with: shiplog completion fish | source
# or save it once: shiplog completion fish > ~/.config/fish/completions/shiplog.fish
set -g __shiplog_paths ${paths.map(fq).join(" ")}
set -g __shiplog_valued ${valued.map(fq).join(" ")}

# The command typed so far ("records storage"), from the words before the cursor: options and their values skipped.
function __shiplog_command
    set -l words (commandline -opc)
    set -e words[1]
    set -l path
    set -l skip 0
    for word in $words
        if test $skip = 1
            set skip 0
            continue
        end
        if contains -- $word $__shiplog_valued
            set skip 1
            continue
        end
        if string match -q -- '-*' $word
            continue
        end
        set -l candidate (string join ' ' $path $word)
        if contains -- $candidate $__shiplog_paths
            set path $path $word
        end
    end
    string join ' ' $path
end

function __shiplog_at
    set -l command (__shiplog_command)
    test "$command" = "$argv[1]"
end

complete -c shiplog -f
${globals.map((o) => fishOption(o, undefined)).join("\n")}
complete -c shiplog -s h -l help -d 'display help'
${lines.join("\n")}
`;
}

const SHELLS = ["bash", "zsh", "fish"] as const;

export function completionCommand(ctx: CommandContext, root: Command): Command {
  return withExamples(
    new Command("completion")
      .description("print a shell completion script for bash, zsh or fish")
      .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(SHELLS))
      .action((shell: string) => {
        if (shell === "bash") ctx.io.stdout(bashCompletion(root));
        else if (shell === "zsh") ctx.io.stdout(zshCompletion(root));
        else if (shell === "fish") ctx.io.stdout(fishCompletion(root));
        else throw new UsageError(`shell must be bash, zsh or fish, got ${JSON.stringify(shell)}`);
      }),
    "source <(shiplog completion bash)      # or add it to ~/.bashrc",
    'shiplog completion zsh > "$fpath[1]/_shiplog"',
    "shiplog completion fish > ~/.config/fish/completions/shiplog.fish",
  );
}
