// apimachinery's util/validation string rules, returning the messages the API server prints (one rule, one message).

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+";

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const CONFIG_KEY = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** validation.RegexError: the rule, examples and the regular expression. */
function regexError(message: string, fmt: string, ...examples: string[]): string {
  const shown = examples.map((e) => `'${e}'`).join(",  or ");
  return `${message} (e.g. ${shown}, regex used for validation is '${fmt}')`;
}

const maxLen = (n: number) => `must be no more than ${n} characters`;

// Valid values are the common case (every pod a controller creates): answer them without allocating.
const NONE: string[] = [];

/** IsDNS1123Label */
export function dns1123LabelProblems(value: string): string[] {
  if (value.length <= 63 && DNS1123_LABEL.test(value)) return NONE;
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!DNS1123_LABEL.test(value)) {
    const rule =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
    out.push(regexError(rule, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return out;
}

/** IsDNS1123Subdomain */
export function dns1123SubdomainProblems(value: string): string[] {
  if (value.length <= 253 && DNS1123_SUBDOMAIN.test(value)) return NONE;
  const out: string[] = [];
  if (value.length > 253) out.push(maxLen(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    const rule =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    out.push(regexError(rule, DNS1123_SUBDOMAIN_FMT, "example.com"));
  }
  return out;
}

const QUALIFIED_RULE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** IsQualifiedName: label keys, annotation keys (`[prefix/]name`). */
export function qualifiedNameProblems(value: string): string[] {
  if (value.length <= 63 && QUALIFIED_NAME.test(value)) return NONE;
  const parts = value.split("/");
  let name: string;
  const out: string[] = [];
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) out.push("prefix part must be non-empty");
    else for (const m of dns1123SubdomainProblems(prefix)) out.push(`prefix part ${m}`);
  } else {
    const example = " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
    return [`a valid label key ${regexError(QUALIFIED_RULE, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}${example}`];
  }
  if (name.length === 0) out.push("name part must be non-empty");
  else if (name.length > 63) out.push(`name part ${maxLen(63)}`);
  if (name.length > 0 && !QUALIFIED_NAME.test(name)) {
    out.push(`name part ${regexError(QUALIFIED_RULE, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  }
  return out;
}

/** IsValidLabelValue */
export function labelValueProblems(value: string): string[] {
  if (value.length <= 63 && LABEL_VALUE.test(value)) return NONE;
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!LABEL_VALUE.test(value)) {
    const rule =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    out.push(regexError(rule, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  }
  return out;
}

/** IsConfigMapKey (ConfigMap and Secret keys). */
export function configKeyProblems(value: string): string[] {
  const out: string[] = [];
  if (value.length > 253) out.push(maxLen(253));
  if (!CONFIG_KEY.test(value)) {
    const rule = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
    out.push(regexError(rule, CONFIG_KEY_FMT, "key.name", "KEY_NAME", "key-name"));
  }
  if (value === ".") out.push("must not be '.'");
  else if (value === "..") out.push("must not be '..'");
  else if (value.startsWith("..")) out.push("must not start with '..'");
  return out;
}
