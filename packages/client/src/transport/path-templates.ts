/**
 * Path templates (`/repos/{owner}/{repo}/git/tags/{tag_sha}`) and a precompiled matcher that resolves a concrete
 * path against many templates, preferring the most specific one: at the first segment where two templates differ,
 * a literal beats a parameter, and a one-segment parameter beats a multi-segment one.
 */

export type TemplateSegment =
  | { kind: "literal"; value: string }
  | { kind: "param"; name: string }
  /** A last-segment parameter whose value may contain slashes (a file path, a ref such as `tags/v1.2.0`). */
  | { kind: "rest"; name: string };

export interface CompiledTemplate {
  template: string;
  segments: readonly TemplateSegment[];
}

/**
 * Parameter names whose value may span several segments when they end a template: `{path}` of contents,
 * `{ref}` of git refs, commits, tarball and zipball (`heads/main`), `{dir}` of readme and `{basehead}` of compare
 * (`main...feature/x`). The service routes these with slashes unencoded.
 */
export const MULTI_SEGMENT_PARAMETERS: ReadonlySet<string> = new Set(["path", "ref", "dir", "basehead"]);

/**
 * Values a parameter must take, where the service only routes a closed set. `{enablement}` of
 * `POST /orgs/{org}/{security_product}/{enablement}` is `enable_all` or `disable_all`; without this every
 * unknown three-segment POST under an organization would pass for that endpoint.
 */
export const PARAMETER_VALUES: Readonly<Record<string, RegExp>> = {
  enablement: /^(enable_all|disable_all)$/,
};

const PARAM = /^\{([a-z_][a-z0-9_]*)\}$/;

/** Parses a template; throws on a malformed one (they are program data, so this is a programming error). */
export function parseTemplate(template: string): CompiledTemplate {
  if (!template.startsWith("/") || template.endsWith("/") || template.includes("//")) {
    throw new Error(`path template ${JSON.stringify(template)} must start with "/" and have no empty segment`);
  }
  const parts = template.slice(1).split("/");
  const segments = parts.map((part, index): TemplateSegment => {
    const param = PARAM.exec(part);
    if (param) {
      const name = param[1] as string;
      const last = index === parts.length - 1;
      return last && MULTI_SEGMENT_PARAMETERS.has(name) ? { kind: "rest", name } : { kind: "param", name };
    }
    if (part.includes("{") || part.includes("}")) {
      throw new Error(`path template ${JSON.stringify(template)}: segment ${JSON.stringify(part)} mixes text and a parameter`);
    }
    return { kind: "literal", value: part };
  });
  return { template, segments };
}

/**
 * Fills a template's parameters with `parameter(name)`, each percent-encoded as one segment, except a multi-segment
 * parameter that ends the template (`{ref}`: `tags/v1`), whose segments are encoded one by one.
 */
export function expandTemplate(template: string, parameter: (name: string) => string): string {
  return template.replace(/\{([a-z_][a-z0-9_]*)\}/gi, (placeholder: string, name: string, at: number) => {
    const value = parameter(name);
    const endsTemplate = at + placeholder.length === template.length && template[at - 1] === "/";
    if (!endsTemplate || !MULTI_SEGMENT_PARAMETERS.has(name)) return encodeURIComponent(value);
    return value.split("/").map(encodeURIComponent).join("/");
  });
}

/** A concrete path split into raw segments, or why it cannot be one. */
export type SplitPath = { ok: true; path: string; segments: string[] } | { ok: false; message: string };

/**
 * Normalises a concrete request path: takes the path of an absolute URL, drops the query and fragment and one
 * trailing slash. A base path (such as `/api/v3`) must already be removed by the caller.
 */
export function splitPath(input: string): SplitPath {
  let path = input.trim();
  if (/^https?:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      return { ok: false, message: `${JSON.stringify(input)} is not a valid URL` };
    }
  }
  path = path.replace(/[?#].*$/s, "");
  if (!path.startsWith("/")) return { ok: false, message: `path must start with "/" (got ${JSON.stringify(input)})` };
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  const segments = path === "/" ? [] : path.slice(1).split("/");
  if (segments.some((s) => s.length === 0)) return { ok: false, message: `path ${JSON.stringify(input)} has an empty segment` };
  return { ok: true, path, segments };
}

interface TrieNode<T> {
  literals: Map<string, TrieNode<T>>;
  param: TrieNode<T> | undefined;
  /** The template ending here, if any. */
  leaf: Leaf<T> | undefined;
  /** The template whose multi-segment parameter starts here, if any. */
  rest: Leaf<T> | undefined;
}

interface Leaf<T> {
  compiled: CompiledTemplate;
  value: T;
}

/** A template that matched a concrete path, with the parameter values (percent-decoded). */
export interface TemplateMatch<T> {
  template: string;
  params: Record<string, string>;
  value: T;
}

function node<T>(): TrieNode<T> {
  return { literals: new Map(), param: undefined, leaf: undefined, rest: undefined };
}

/** Resolves concrete paths against a fixed set of templates; built once, each match walks a trie. */
export class TemplateMatcher<T> {
  readonly #root: TrieNode<T> = node();

  /** Throws when two templates have the same shape (they would be indistinguishable). */
  constructor(entries: Iterable<readonly [template: string, value: T]>) {
    for (const [template, value] of entries) this.#insert(parseTemplate(template), value);
  }

  #insert(compiled: CompiledTemplate, value: T): void {
    let current = this.#root;
    for (const segment of compiled.segments) {
      if (segment.kind === "rest") {
        if (current.rest) throw shapeClash(current.rest.compiled, compiled);
        current.rest = { compiled, value };
        return;
      }
      if (segment.kind === "literal") {
        let next = current.literals.get(segment.value);
        if (!next) {
          next = node();
          current.literals.set(segment.value, next);
        }
        current = next;
      } else {
        current = current.param ??= node();
      }
    }
    if (current.leaf) throw shapeClash(current.leaf.compiled, compiled);
    current.leaf = { compiled, value };
  }

  /**
   * The most specific template matching `segments` whose value passes `accept` (all pass by default).
   * Segments are raw (still percent-encoded); literals compare exactly.
   */
  match(segments: readonly string[], accept: (value: T) => boolean = () => true): TemplateMatch<T> | undefined {
    const leaf = this.#find(this.#root, segments, 0, accept);
    if (!leaf) return undefined;
    return { template: leaf.compiled.template, params: extractParams(leaf.compiled, segments), value: leaf.value };
  }

  #find(at: TrieNode<T>, segments: readonly string[], index: number, accept: (value: T) => boolean): Leaf<T> | undefined {
    if (index === segments.length) return at.leaf && fits(at.leaf, segments) && accept(at.leaf.value) ? at.leaf : undefined;
    const segment = segments[index] as string;
    const literal = at.literals.get(segment);
    if (literal) {
      const found = this.#find(literal, segments, index + 1, accept);
      if (found) return found;
    }
    if (at.param) {
      const found = this.#find(at.param, segments, index + 1, accept);
      if (found) return found;
    }
    return at.rest && fits(at.rest, segments) && accept(at.rest.value) ? at.rest : undefined;
  }
}

/** Whether the parameters with a closed set of values take one of them. */
function fits<T>(leaf: Leaf<T>, segments: readonly string[]): boolean {
  return leaf.compiled.segments.every((segment, index) => {
    if (segment.kind !== "param") return true;
    const allowed = PARAMETER_VALUES[segment.name];
    return !allowed || allowed.test(decode(segments[index] as string));
  });
}

function shapeClash(a: CompiledTemplate, b: CompiledTemplate): Error {
  return new Error(`path templates ${a.template} and ${b.template} have the same shape`);
}

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function extractParams(compiled: CompiledTemplate, segments: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  compiled.segments.forEach((segment, index) => {
    if (segment.kind === "param") params[segment.name] = decode(segments[index] as string);
    else if (segment.kind === "rest") params[segment.name] = decode(segments.slice(index).join("/"));
  });
  return params;
}
