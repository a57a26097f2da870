/**
 * Calico flow logs: the records Calico Enterprise and Cloud write (docs
 * "Flow log data types": source_name, source_name_aggr, source_namespace,
 * source_type, source_labels, source_ip, dest_*, dest_port, proto, action
 * allow|deny, reporter src|dst, num_flows), as JSON lines or an
 * Elasticsearch hit (`_source`), and Calico Open Source's flow logs API
 * (goldmane/proto/api.proto: a Flow with its FlowKey under `Key`, actions
 * Allow|Deny, reporters Src|Dst, labels as `k=v` strings,
 * num_connections_started).
 *
 * - A name ending in `*` (`nginx-86c57db685-*`) or `-` (goldmane's "set of
 *   pods that share a GenerateName") is aggregated: a prefix of pod names.
 *   `-` alone means aggregated away: the `_aggr` name is read instead.
 * - source_type / dest_type other than a workload endpoint (`wep`): a host
 *   endpoint, a network set or a network (`pvt`, `pub`) is no pod; its
 *   address, when given, is kept for matching.
 * - A namespace `-` is no namespace.
 */
import type { Protocol } from "../model/protocol.ts";
import { arr, isObj, num, obj, str, type Json } from "../parse/values.ts";
import type { Read } from "./hubble.ts";
import type { FlowEnd, ObservedFlow, ObservedPolicy } from "./types.ts";

/** The record's fields: an Elasticsearch hit's `_source`, a goldmane FlowResult's `flow`, its `Key`. */
function unwrap(rec: Json): { key: Json; top: Json } {
  const top = obj(rec._source) ?? obj(rec.flow) ?? rec;
  return { key: obj(top.Key) ?? obj(top.key) ?? top, top };
}

export function isCalico(rec: Json): boolean {
  const { key } = unwrap(rec);
  return "dest_namespace" in key || "source_namespace" in key || ("action" in key && "reporter" in key);
}

/** IANA protocol numbers as some exports write them. */
const PROTO: Record<string, Protocol | "ICMP"> = {
  tcp: "TCP",
  udp: "UDP",
  sctp: "SCTP",
  icmp: "ICMP",
  icmp6: "ICMP",
  icmpv6: "ICMP",
  "6": "TCP",
  "17": "UDP",
  "132": "SCTP",
  "1": "ICMP",
  "58": "ICMP",
};

function labelsOf(v: unknown): Record<string, string> | undefined {
  const list = isObj(v) ? arr(v.labels) : arr(v);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const item of list) {
    if (typeof item !== "string" || item === "-") continue;
    const eq = item.indexOf("=");
    out[eq < 0 ? item : item.slice(0, eq)] = eq < 0 ? "" : item.slice(eq + 1);
  }
  return Object.keys(out).length ? out : undefined;
}

const WORKLOAD_TYPES = new Set(["wep", "WorkloadEndpoint", "1"]);

function endOf(key: Json, top: Json, side: "source" | "dest"): FlowEnd {
  const rawNs = str(key[`${side}_namespace`]);
  const namespace = rawNs && rawNs !== "-" ? rawNs : undefined;
  const type = key[`${side}_type`];
  const isPod = type === undefined || WORKLOAD_TYPES.has(String(type));
  let name = str(key[`${side}_name`]);
  if (!name || name === "-") name = str(key[`${side}_name_aggr`]);
  const ip = str(key[`${side}_ip`]) ?? str(top[`${side}_ip`]);
  const end: FlowEnd = { text: "" };
  if (namespace) end.namespace = namespace;
  if (isPod && name && name !== "-") {
    const aggregated = name.endsWith("*") || name.endsWith("-");
    end.name = name.replace(/\*$/, "");
    if (aggregated) end.aggregated = true;
  }
  const labels = labelsOf(key[`${side}_labels`] ?? top[`${side}_labels`]);
  if (labels && isPod) end.labels = labels;
  if (ip) end.ip = ip;
  if (!isPod)
    end.outside = `a ${String(type) === "hep" || type === "HostEndpoint" ? "host endpoint" : "network endpoint"} (${name ?? String(type)}), not a pod`;
  if (side === "dest") {
    const svc = str(key.dest_service_name);
    const svcNs = str(key.dest_service_namespace);
    if (!end.name && svc && svc !== "-" && svcNs && svcNs !== "-") end.service = `${svcNs}/${svc}`;
  }
  end.text =
    [namespace, name].filter((x) => x && x !== "-").join("/") +
    (isPod ? "" : ` (${String(type)})`) +
    (ip ? ` ${ip}` : "");
  end.text = end.text.trim() || "(no endpoint)";
  return end;
}

export function readCalico(rec: Json, file: string, line: number): Read {
  const { key, top } = unwrap(rec);
  const action = str(key.action)?.toLowerCase();
  if (action !== "allow" && action !== "deny")
    return action === undefined
      ? { error: "a Calico flow log record without an action" }
      : { skip: `action ${action}: neither allow nor deny` };
  const rawProto = key.proto;
  const proto =
    typeof rawProto === "string" || typeof rawProto === "number"
      ? PROTO[String(rawProto).toLowerCase()]
      : undefined;
  if (!proto) return { error: `proto ${JSON.stringify(rawProto ?? null)} is not TCP, UDP, SCTP or ICMP` };
  if (proto === "ICMP") return { skip: "ICMP has no port: ktl compares port connections" };
  const port = num(key.dest_port);
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65535)
    return { skip: "no destination port (aggregated away)" };
  const count = num(top.num_flows) ?? num(top.num_connections_started) ?? num(key.num_flows) ?? 1;
  const flow: ObservedFlow = {
    file,
    line,
    format: "calico",
    src: endOf(key, top, "source"),
    dst: endOf(key, top, "dest"),
    port,
    protocol: proto,
    verdict: action === "allow" ? "forwarded" : "dropped",
    count: Math.max(1, Math.floor(count)),
  };
  const reporter = str(key.reporter)?.toLowerCase();
  if (reporter === "src" || reporter === "dst") flow.reporter = reporter;
  const policy = decidingPolicy(obj(key.policies) ?? obj(top.policies), action);
  if (policy) flow.policy = policy;
  return { flow };
}

/**
 * The enforced policy that gave the record's action: Enterprise's entries
 * `<index>|<tier>|<name>|<action>|<rule index>` (names `NS/knp.default.NAME`
 * for a Kubernetes NetworkPolicy, `NS/TIER.NAME` for a Calico one,
 * `TIER.NAME` for a GlobalNetworkPolicy; `staged:` ones enforce nothing;
 * `__PROFILE__` is the namespace's default, no policy), or goldmane's
 * PolicyHit objects (kind, namespace, name, tier, action). The last hit with
 * the record's action decided.
 */
function decidingPolicy(p: Json | undefined, action: "allow" | "deny"): ObservedPolicy | undefined {
  if (!p) return undefined;
  const hits = arr(p.enforced_policies ?? p.enforcedPolicies ?? p.all_policies);
  let best: { index: number; policy: ObservedPolicy | undefined } | undefined;
  hits.forEach((h, i) => {
    let index = i;
    let policy: ObservedPolicy | undefined;
    let act: string | undefined;
    if (typeof h === "string") {
      const [idx, tier, name, a] = h.split("|");
      act = a?.toLowerCase();
      index = Number(idx);
      if (!name || name.includes("staged:")) return;
      policy = tier === "__PROFILE__" ? undefined : policyFromName(name, tier);
    } else if (isObj(h)) {
      act = str(h.action)?.toLowerCase();
      index = num(h.policy_index) ?? i;
      const name = str(h.name);
      const kind = str(h.kind);
      if (!name || kind?.startsWith("Staged")) return;
      policy = kind === "Profile" || kind === "EndOfTier" ? undefined : { name, ...(kind ? { kind } : {}) };
      const ns = str(h.namespace);
      const tier = str(h.tier);
      if (policy && ns) policy.namespace = ns;
      if (policy && tier) policy.tier = tier;
    } else return;
    if (act === action && (!best || index >= best.index)) best = { index, policy };
  });
  return best?.policy;
}

function policyFromName(name: string, tier: string | undefined): ObservedPolicy {
  const slash = name.indexOf("/");
  const withTier = (p: ObservedPolicy) => (tier ? { ...p, tier } : p);
  if (slash < 0) return withTier({ kind: "GlobalNetworkPolicy", name });
  const namespace = name.slice(0, slash);
  const rest = name.slice(slash + 1);
  if (rest.startsWith("knp.default."))
    return { kind: "NetworkPolicy", namespace, name: rest.slice("knp.default.".length) };
  return withTier({ kind: "NetworkPolicy", namespace, name: rest });
}
