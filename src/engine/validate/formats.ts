/**
 * String formats of the Kubernetes API, with the apiserver's own messages:
 * k8s.io/apimachinery/pkg/util/validation/validation.go and
 * k8s.io/apimachinery/pkg/api/validate/content (dns.go, kube.go).
 * Each returns the list of messages Go returns (empty when valid).
 */

/** validation.MaxLenError */
export const maxLenError = (n: number): string => `must be no more than ${n} characters`;

/** validation.RegexError: `msg (e.g. 'a' or 'b', regex used for validation is 'fmt')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

/** validation.InclusiveRangeError */
export const inclusiveRangeError = (lo: number, hi: number): string =>
  `must be between ${lo} and ${hi}, inclusive`;

/** validation.EmptyError */
const EMPTY = "must be non-empty";

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** Go measures strings in bytes. */
export function byteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** IsDNS1123Label */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    // A valid subdomain that is not a valid label can only be wrong by its dots.
    if (DNS1123_SUBDOMAIN.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

/** IsDNS1123Subdomain */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** IsDNS1035Label */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value))
    errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

/** apimachinery/pkg/api/validation maskTrailingDash: a generateName prefix may end in '-'. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

export type NameFunc = (name: string, prefix: boolean) => string[];

/** NameIsDNSSubdomain */
export const nameIsDNSSubdomain: NameFunc = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
/** NameIsDNSLabel (also ValidateNamespaceName) */
export const nameIsDNSLabel: NameFunc = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);
/** NameIsDNS1035Label (ValidateServiceName while RelaxedServiceNameValidation is alpha, off, in 1.35) */
export const nameIsDNS1035Label: NameFunc = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY = new RegExp(`^${LABEL_KEY_FMT}$`);

/** content.IsLabelKey (IsQualifiedName): an optional DNS subdomain prefix and '/', then a name. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY}`);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!LABEL_KEY.test(name))
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** content.IsLabelValue */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** IsValidPortNum: 1..65535. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IsValidPortName (IANA_SVC_NAME): at most 15 of [-a-z0-9], a letter, no '--', no leading or trailing '-'. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-")))
    errs.push("must not begin or end with a hyphen");
  return errs;
}

/**
 * IsFullyQualifiedDomainName (an EndpointSlice FQDN address): a DNS subdomain
 * of at least two labels, a trailing '.' allowed. Returns [value shown, message].
 */
export function isFullyQualifiedDomainName(
  name: string,
): { value: string; message: string } | "required" | undefined {
  if (name.length === 0) return "required";
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  const sub = isDNS1123Subdomain(n);
  if (sub.length) return { value: n, message: sub.join(",") };
  const labels = n.split(".");
  if (labels.length < 2)
    return { value: n, message: "should be a domain with at least two segments separated by dots" };
  for (const l of labels) {
    const e = isDNS1123Label(l);
    if (e.length) return { value: l, message: e.join(",") };
  }
  return undefined;
}
