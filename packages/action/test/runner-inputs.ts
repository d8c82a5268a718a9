// How the runner turns a step's `with:` and the action's action.yml into INPUT_* variables: every declared input
// is set, given or defaulted, and defaults may be `${{ github.* }}` expressions.

/** One input as action.yml declares it. */
export interface ActionInputDeclaration {
  description?: string;
  default?: string | number | boolean;
  required?: boolean;
}

/** What `${{ github.* }}` expressions in defaults resolve from. */
export interface GithubContextSource {
  /** The job's token (`github.token`): the runner's GITHUB_TOKEN for the job. */
  token: string | undefined;
  /** The job's variables; `github.<name>` reads `GITHUB_<NAME>` (github.sha -> GITHUB_SHA, github.api_url -> GITHUB_API_URL). */
  env: Record<string, string | undefined>;
}

/** The variable the runner passes an input in: `INPUT_` + the name upper-cased, spaces as underscores, hyphens kept. */
export function inputEnvName(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

const EXPRESSION = /\$\{\{\s*(.*?)\s*\}\}/g;

/** Evaluates the `${{ github.<name> }}` expressions of a default; anything else is refused (this is not a full runner). */
export function evaluateDefault(input: string, value: string, github: GithubContextSource): string {
  return value.replace(EXPRESSION, (_, expression: string) => {
    const property = /^github\.([a-z_]+)$/.exec(expression)?.[1];
    if (property === undefined) {
      throw new Error(
        `action.yml: the default of input ${input} uses \${{ ${expression} }}: only github.<name> expressions can be evaluated locally`,
      );
    }
    // A property the job does not have evaluates to an empty string, as in the runner.
    return (property === "token" ? github.token : github.env[`GITHUB_${property.toUpperCase()}`]) ?? "";
  });
}

/**
 * The INPUT_* variables of a step: each declared input with its given value, else its evaluated default, else empty.
 * An input action.yml does not declare is refused (the runner only warns; locally it is a typo worth stopping on).
 */
export function runnerInputEnv(
  declared: Record<string, ActionInputDeclaration>,
  given: Record<string, string>,
  github: GithubContextSource,
): Record<string, string> {
  const unknown = Object.keys(given).filter((name) => !Object.hasOwn(declared, name));
  if (unknown.length > 0) {
    throw new Error(
      `unexpected input(s) ${unknown.map((name) => `'${name}'`).join(", ")}: action.yml declares ${Object.keys(declared).join(", ")}`,
    );
  }
  const env: Record<string, string> = {};
  for (const [name, declaration] of Object.entries(declared)) {
    const value = Object.hasOwn(given, name)
      ? given[name]!
      : declaration.default === undefined
        ? ""
        : evaluateDefault(name, String(declaration.default), github);
    env[inputEnvName(name)] = value;
  }
  return env;
}
