/**
 * Trace endpoints in `ktl trace` syntax (shared/contract/ktl-cli.md):
 * SRC `pod:NS/NAME`, `node:NAME`, `external:IP@NODE`;
 * DST `service:NS/NAME:PORT`, `pod:NS/NAME:PORT`, `ip:ADDRESS:PORT`.
 */
export type TraceSource =
  | { kind: "pod"; key: string }
  | { kind: "node"; name: string }
  | { kind: "external"; ip: string; node: string };

export type TraceDestination =
  | { kind: "service"; key: string; port: number }
  | { kind: "pod"; key: string; port: number }
  | { kind: "ip"; ip: string; port: number };

function splitPort(s: string): { head: string; port: number } | undefined {
  const i = s.lastIndexOf(":");
  if (i <= 0) return undefined;
  const port = Number(s.slice(i + 1));
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { head: s.slice(0, i), port };
}

export function parseTraceSource(s: string): TraceSource | string {
  if (s.startsWith("pod:") && s.length > 4 && s.includes("/")) return { kind: "pod", key: s.slice(4) };
  if (s.startsWith("node:") && s.length > 5) return { kind: "node", name: s.slice(5) };
  if (s.startsWith("external:")) {
    const [ip, node] = s.slice(9).split("@");
    if (ip && node) return { kind: "external", ip, node };
    return `"${s}": an external source needs the node it arrives at, as external:IP@NODE`;
  }
  return `"${s}" is not a source: use pod:NAMESPACE/NAME, node:NAME or external:IP@NODE`;
}

export function parseTraceDestination(s: string): TraceDestination | string {
  const bad = `"${s}" is not a destination: use service:NAMESPACE/NAME:PORT, pod:NAMESPACE/NAME:PORT or ip:ADDRESS:PORT`;
  for (const kind of ["service", "pod", "ip"] as const) {
    if (!s.startsWith(`${kind}:`)) continue;
    const hp = splitPort(s.slice(kind.length + 1));
    if (!hp) return bad;
    if (kind === "ip") return { kind, ip: hp.head.replace(/^\[|\]$/g, ""), port: hp.port };
    if (!hp.head.includes("/")) return bad;
    return { kind, key: hp.head, port: hp.port };
  }
  return bad;
}
