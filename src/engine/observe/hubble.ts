/**
 * Hubble flows (`hubble observe -o json`): one `flow.Flow` a line, or the
 * `GetFlowsResponse` around it (`{"flow": {...}, "node_name", "time"}`) as
 * `-o jsonpb` and some versions print. Field names as cilium/cilium
 * api/v1/flow/flow.proto writes them in protojson (proto names: `pod_name`,
 * `destination_port`, `IP`, `l4.TCP`), with the lowerCamelCase spellings
 * (`podName`, `destinationPort`) that other encoders use read too.
 *
 * - `verdict`: FORWARDED, and REDIRECTED (to the L7 proxy) and AUDIT (policy
 *   audit mode: a policy would drop it, the datapath let it through) count as
 *   forwarded; DROPPED as dropped; ERROR, TRACED, TRANSLATED and unknown
 *   verdicts decide nothing and are skipped, saying so.
 * - `is_reply` true (or the deprecated `reply`): the reply direction of a
 *   connection counted where it opened; skipped, saying so.
 * - `l7` or `Type: L7`: an L7 record (HTTP, DNS, Kafka) of a connection whose
 *   L4 record is counted; skipped. ICMP has no port; skipped.
 * - `traffic_direction` EGRESS was seen at the source's endpoint, INGRESS at
 *   the destination's (the reporter).
 * - `source` / `destination` (flow.Endpoint): namespace, pod_name, labels
 *   (`k8s:app=web`: the source prefix is dropped, `reserved:` identities such
 *   as `reserved:world` name the end), workloads; the addresses from `IP`.
 */
import type { Protocol } from "../model/protocol.ts";
import { arr, isObj, num, obj, str, type Json } from "../parse/values.ts";
import type { FlowEnd, ObservedFlow } from "./types.ts";

export type Read = { flow: ObservedFlow } | { skip: string } | { error: string };

/** flow.proto's Verdict enum, for encoders that write numbers. */
const VERDICTS: Record<number, string> = {
  0: "VERDICT_UNKNOWN",
  1: "FORWARDED",
  2: "DROPPED",
  3: "ERROR",
  4: "AUDIT",
  5: "REDIRECTED",
  6: "TRACED",
  7: "TRANSLATED",
};

/** flow.proto's DropReason values that are a policy's refusal (the rest are datapath errors). */
export const POLICY_DROP_REASONS: ReadonlySet<string> = new Set([
  "POLICY_DENIED",
  "POLICY_DENY",
  "133",
  "181",
]);

/** flow.proto's Flow.{ingress,egress}_{denied,allowed}_by, by proto name and lowerCamelCase. */
const DENIED_BY = [
  ["ingress_denied_by", "ingressDeniedBy"],
  ["egress_denied_by", "egressDeniedBy"],
] as const;
const ALLOWED_BY = [
  ["ingress_allowed_by", "ingressAllowedBy"],
  ["egress_allowed_by", "egressAllowedBy"],
] as const;

const field = (o: Json, proto: string, camel: string): unknown => (proto in o ? o[proto] : o[camel]);

/** Whether a JSON record is a Hubble flow (or its GetFlowsResponse). */
export function isHubble(rec: Json): boolean {
  const f = obj(rec.flow) ?? rec;
  return (
    "verdict" in f ||
    "traffic_direction" in f ||
    "trafficDirection" in f ||
    ((isObj(f.source) || isObj(f.destination)) && ("l4" in f || "IP" in f || "ip" in f)) ||
    "lost_events" in rec ||
    "node_status" in rec
  );
}

function labelsOf(list: unknown): { labels: Record<string, string>; reserved: string[] } {
  const labels: Record<string, string> = Object.create(null) as Record<string, string>;
  const reserved: string[] = [];
  for (const item of arr(list)) {
    if (typeof item !== "string") continue;
    // Cilium writes a label as SOURCE:KEY=VALUE (pkg/labels): k8s, container, reserved, ...
    const m = /^([a-z][a-z0-9-]*):(.*)$/.exec(item);
    const source = m ? m[1]! : "";
    const kv = m ? m[2]! : item;
    if (source === "reserved") {
      reserved.push(item);
      continue;
    }
    const eq = kv.indexOf("=");
    const key = eq < 0 ? kv : kv.slice(0, eq);
    // Cilium's own identity labels (the namespace, its labels, the service account) are not the pod's labels.
    if (key === "io.kubernetes.pod.namespace" || key.startsWith("io.cilium.k8s.")) continue;
    labels[key] = eq < 0 ? "" : kv.slice(eq + 1);
  }
  return { labels, reserved };
}

function endOf(e: Json | undefined, ip: string | undefined): FlowEnd {
  const end: FlowEnd = { text: "" };
  const ns = e && str(e.namespace);
  const pod = e && str(field(e, "pod_name", "podName"));
  if (ns) end.namespace = ns;
  if (pod) end.name = pod;
  const { labels, reserved } = labelsOf(e?.labels);
  if (Object.keys(labels).length) end.labels = labels;
  const workloads = arr(e?.workloads)
    .filter(isObj)
    .flatMap((w) => {
      const name = str(w.name);
      const kind = str(w.kind);
      return name ? [kind ? { kind, name } : { name }] : [];
    });
  if (workloads.length) end.workloads = workloads;
  if (ip) end.ip = ip;
  if (!pod && reserved.length) end.outside = `${reserved.join(" ")}: an identity outside the cluster's pods`;
  end.text =
    pod && ns
      ? `${ns}/${pod}`
      : [...reserved, ...(ns ? [`namespace ${ns}`] : []), ...(ip ? [ip] : [])].join(" ") || "(no endpoint)";
  return end;
}

function portOf(l4: Json): { protocol: Protocol; port: number } | { skip: string } | undefined {
  for (const p of ["TCP", "UDP", "SCTP"] as const) {
    const x = obj(l4[p]) ?? obj(l4[p.toLowerCase()]);
    if (!x) continue;
    const port = num(field(x, "destination_port", "destinationPort"));
    if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65535)
      return { skip: `${p} record without a destination port` };
    return { protocol: p, port };
  }
  if ("ICMPv4" in l4 || "ICMPv6" in l4) return { skip: "ICMP has no port: ktl compares port connections" };
  return undefined;
}

export function readHubble(rec: Json, file: string, line: number): Read {
  const f = obj(rec.flow) ?? (isObj(rec.flow) ? undefined : rec);
  if (!f || !("verdict" in f || "source" in f || "destination" in f)) {
    const what = ["lost_events", "node_status"].find((k) => k in rec);
    return what ? { skip: `not a flow (${what})` } : { error: "a Hubble record without a flow" };
  }
  const rawVerdict = f.verdict;
  const verdict = typeof rawVerdict === "number" ? VERDICTS[rawVerdict] : str(rawVerdict);
  if (field(f, "is_reply", "isReply") === true || f.reply === true)
    return { skip: "a reply (is_reply): the connection is counted in the direction it was opened" };
  if ("l7" in f || f.Type === "L7" || f.type === "L7")
    return { skip: "an L7 record: ktl compares connections, which the flow's L4 records count" };
  const l4 = obj(f.l4);
  const port = l4 ? portOf(l4) : undefined;
  if (!port) return { skip: "no TCP, UDP or SCTP header (l4)" };
  if ("skip" in port) return port;
  let v: "forwarded" | "dropped";
  if (verdict === "FORWARDED" || verdict === "REDIRECTED" || verdict === "AUDIT") v = "forwarded";
  else if (verdict === "DROPPED") v = "dropped";
  else if (verdict === undefined) return { error: "a Hubble flow without a verdict" };
  else return { skip: `verdict ${verdict}: neither forwarded nor dropped` };
  const ip = obj(f.IP) ?? obj(f.ip);
  const flow: ObservedFlow = {
    file,
    line,
    format: "hubble",
    src: endOf(obj(f.source), ip ? str(ip.source) : undefined),
    dst: endOf(obj(f.destination), ip ? str(ip.destination) : undefined),
    port: port.port,
    protocol: port.protocol,
    verdict: v,
    count: 1,
  };
  const dir = field(f, "traffic_direction", "trafficDirection");
  if (dir === "EGRESS" || dir === 2) flow.reporter = "src";
  else if (dir === "INGRESS" || dir === 1) flow.reporter = "dst";
  // Newer Hubble names the policies: ingress_denied_by, egress_allowed_by, ... (flow.Policy: name, namespace, kind).
  const by = (v === "dropped" ? DENIED_BY : ALLOWED_BY)
    .map(([proto, camel]) => arr(f[proto] ?? f[camel]).find(isObj))
    .find((x) => x && str(x.name));
  if (by) {
    flow.policy = { name: str(by.name)! };
    const kind = str(by.kind);
    const ns = str(by.namespace);
    if (kind) flow.policy.kind = kind;
    if (ns) flow.policy.namespace = ns;
  }
  const reason = field(f, "drop_reason_desc", "dropReasonDesc");
  if (v === "dropped" && (typeof reason === "string" || typeof reason === "number"))
    flow.dropReason = String(reason);
  return { flow };
}
