/**
 * apiserver validation, one table per upstream function. Each case names the
 * upstream rule (and, where there is one, the upstream test case) it pins,
 * and every rule has a valid and an invalid example.
 */
import { describe, expect, it } from "vitest";
import { buildModel, loadModel } from "../index.ts";
import { parseManifests } from "../parse/manifests.ts";
import { YamlPartCache } from "../parse/yaml.ts";
import type { ClusterConfig } from "../model/types.ts";
import { validateModel } from "./index.ts";

interface Want {
  field: string;
  type: string;
  contains?: string;
}

interface Case {
  name: string;
  yaml: string;
  /** [] means: the apiserver accepts it. */
  errors: Want[];
  config?: Partial<ClusterConfig>;
}

function errorsOf(yaml: string, config?: Partial<ClusterConfig>) {
  return validateModel(loadModel([{ name: "t.yaml", text: yaml }], config ? { config } : {}), { lint: false })
    .errors;
}

function runTable(cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const got = errorsOf(c.yaml, c.config);
      if (c.errors.length === 0) {
        expect(got.map((e) => `${e.field}: ${e.type}: ${e.detail}`)).toEqual([]);
        return;
      }
      for (const w of c.errors) {
        const hit = got.find(
          (e) => e.field === w.field && e.type === w.type && (!w.contains || e.detail.includes(w.contains)),
        );
        expect(
          hit,
          `${w.field} ${w.type} "${w.contains ?? ""}" in ${JSON.stringify(got.map((e) => `${e.field}: ${e.type}: ${e.detail}`))}`,
        ).toBeDefined();
      }
    });
  }
}

/** A Service with `spec` lines appended (indented by two spaces). */
function svc(spec: string, meta = "name: web"): string {
  return `apiVersion: v1
kind: Service
metadata: {${meta}}
spec:
  selector: {app: web}
${spec
  .split("\n")
  .filter(Boolean)
  .map((l) => `  ${l}`)
  .join("\n")}
`;
}

const PORT = "ports: [{name: http, port: 80, targetPort: 8080}]";

describe("validateServiceExternalTrafficPolicy", () => {
  runTable([
    {
      name: "TestValidateServiceExternalTrafficPolicy: cannot set externalTrafficPolicy on a clusterIP service",
      yaml: svc(`type: ClusterIP\n${PORT}\nexternalTrafficPolicy: Local`),
      errors: [
        {
          field: "spec.externalTrafficPolicy",
          type: "Invalid value",
          contains: "may only be set for externally-accessible services",
        },
      ],
    },
    {
      name: "ExternallyAccessible: a ClusterIP Service with externalIPs may set externalTrafficPolicy",
      yaml: svc(`type: ClusterIP\n${PORT}\nexternalIPs: [203.0.113.10]\nexternalTrafficPolicy: Local`),
      errors: [],
    },
    {
      name: "SetDefaults_Service defaults externalTrafficPolicy only for externally-accessible Services (no Required error)",
      yaml: svc(`type: NodePort\n${PORT}`),
      errors: [],
    },
    {
      name: "TestValidateServiceCreate 'invalid externalTraffic field': unsupported value",
      yaml: svc(`type: LoadBalancer\n${PORT}\nexternalTrafficPolicy: Global`),
      errors: [
        {
          field: "spec.externalTrafficPolicy",
          type: "Unsupported value",
          contains: 'supported values: "Cluster", "Local"',
        },
      ],
    },
    {
      name: "ExternalName is never externally accessible",
      yaml: svc(`type: ExternalName\nexternalName: db.example.com\nexternalTrafficPolicy: Cluster`),
      errors: [
        { field: "spec.externalTrafficPolicy", type: "Invalid value", contains: "externally-accessible" },
      ],
    },
    {
      name: "TestValidateServiceExternalTrafficPolicy: cannot set healthCheckNodePort on a nodePort service",
      yaml: svc(`type: NodePort\n${PORT}\nexternalTrafficPolicy: Local\nhealthCheckNodePort: 30500`),
      errors: [
        {
          field: "spec.healthCheckNodePort",
          type: "Invalid value",
          contains: "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        },
      ],
    },
    {
      name: "healthCheckNodePort on a LoadBalancer with externalTrafficPolicy Cluster",
      yaml: svc(`type: LoadBalancer\n${PORT}\nhealthCheckNodePort: 30500`),
      errors: [
        { field: "spec.healthCheckNodePort", type: "Invalid value", contains: "may only be set when" },
      ],
    },
    {
      name: "TestValidateServiceExternalTrafficPolicy: valid loadBalancer service with externalTrafficPolicy and healthCheckNodePort set",
      yaml: svc(`type: LoadBalancer\n${PORT}\nexternalTrafficPolicy: Local\nhealthCheckNodePort: 31100`),
      errors: [],
    },
    {
      name: "allocHealthCheckNodePort allocates one when none is given (no Required error)",
      yaml: svc(`type: LoadBalancer\n${PORT}\nexternalTrafficPolicy: Local`),
      errors: [],
    },
    {
      name: "TestValidateServiceCreate 'negative healthCheckNodePort field': the allocator refuses it before validation, then IsValidPortNum",
      yaml: svc(`type: LoadBalancer\n${PORT}\nexternalTrafficPolicy: Local\nhealthCheckNodePort: -1`),
      errors: [
        {
          field: "spec.healthCheckNodePort",
          type: "Internal error",
          contains:
            "failed to allocate requested HealthCheck NodePort -1: provided port is not in the valid range. The range of valid ports is 30000-32767",
        },
        {
          field: "spec.healthCheckNodePort",
          type: "Invalid value",
          contains: "must be between 1 and 65535, inclusive",
        },
      ],
    },
  ]);
});

describe("validateServiceInternalTrafficFieldsValue and validateServiceTrafficDistribution", () => {
  runTable([
    {
      name: "internalTrafficPolicy Local is supported",
      yaml: svc(`${PORT}\ninternalTrafficPolicy: Local`),
      errors: [],
    },
    {
      name: "internalTrafficPolicy unsupported value",
      yaml: svc(`${PORT}\ninternalTrafficPolicy: Nearby`),
      errors: [
        {
          field: "spec.internalTrafficPolicy",
          type: "Unsupported value",
          contains: 'supported values: "Cluster", "Local"',
        },
      ],
    },
    {
      name: "trafficDistribution PreferSameNode (PreferSameTrafficDistribution GA in 1.35)",
      yaml: svc(`${PORT}\ntrafficDistribution: PreferSameNode`),
      errors: [],
    },
    {
      name: "TestValidateServiceCreate 'invalid: trafficDistribution field set to Random'",
      yaml: svc(`${PORT}\ntrafficDistribution: Random`),
      errors: [
        {
          field: "spec.trafficDistribution",
          type: "Unsupported value",
          contains: 'supported values: "PreferClose", "PreferSameZone", "PreferSameNode"',
        },
      ],
    },
  ]);
});

describe("validateClientIPAffinityConfig", () => {
  runTable([
    {
      name: "TestValidateServiceCreate 'invalid timeoutSeconds field' (0)",
      yaml: svc(`${PORT}\nsessionAffinity: ClientIP\nsessionAffinityConfig: {clientIP: {timeoutSeconds: 0}}`),
      errors: [
        {
          field: "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
          type: "Invalid value",
          contains: "must be greater than 0 and less than 86400",
        },
      ],
    },
    {
      name: "timeoutSeconds above MaxClientIPServiceAffinitySeconds",
      yaml: svc(
        `${PORT}\nsessionAffinity: ClientIP\nsessionAffinityConfig: {clientIP: {timeoutSeconds: 86401}}`,
      ),
      errors: [{ field: "spec.sessionAffinityConfig.clientIP.timeoutSeconds", type: "Invalid value" }],
    },
    {
      name: "timeoutSeconds 86400 is the largest valid value",
      yaml: svc(
        `${PORT}\nsessionAffinity: ClientIP\nsessionAffinityConfig: {clientIP: {timeoutSeconds: 86400}}`,
      ),
      errors: [],
    },
    {
      name: "SetDefaults_Service: ClientIP without config gets 10800",
      yaml: svc(`${PORT}\nsessionAffinity: ClientIP`),
      errors: [],
    },
    {
      name: "SetDefaults_Service: sessionAffinity None drops sessionAffinityConfig (no Forbidden error)",
      yaml: svc(`${PORT}\nsessionAffinityConfig: {clientIP: {timeoutSeconds: 0}}`),
      errors: [],
    },
    {
      name: "validateService: sessionAffinity unsupported value",
      yaml: svc(`${PORT}\nsessionAffinity: Sticky`),
      errors: [
        {
          field: "spec.sessionAffinity",
          type: "Unsupported value",
          contains: 'supported values: "ClientIP", "None"',
        },
      ],
    },
  ]);
});

describe("ValidateServiceClusterIPsRelatedFields and initIPFamilyFields", () => {
  const V4: Partial<ClusterConfig> = { serviceCIDRs: ["10.96.0.0/12"] };
  runTable([
    {
      name: "ipFamilyPolicy unsupported value",
      yaml: svc(`${PORT}\nipFamilyPolicy: DualStack`),
      errors: [
        {
          field: "spec.ipFamilyPolicy",
          type: "Unsupported value",
          contains: '"PreferDualStack", "RequireDualStack", "SingleStack"',
        },
      ],
    },
    {
      name: "RequireDualStack on a dual-stack cluster",
      yaml: svc(`${PORT}\nipFamilyPolicy: RequireDualStack`),
      errors: [],
    },
    {
      name: "initIPFamilyFields: RequireDualStack on a single-stack cluster",
      yaml: svc(`${PORT}\nipFamilyPolicy: RequireDualStack`),
      config: V4,
      errors: [
        {
          field: "spec.ipFamilyPolicy",
          type: "Invalid value",
          contains: "this cluster is not configured for dual-stack services",
        },
      ],
    },
    {
      name: "PreferDualStack on a single-stack cluster is accepted",
      yaml: svc(`${PORT}\nipFamilyPolicy: PreferDualStack`),
      config: V4,
      errors: [],
    },
    {
      name: "initIPFamilyFields: an IP family the cluster lacks",
      yaml: svc(`${PORT}\nipFamilies: [IPv6]`),
      config: V4,
      errors: [
        { field: "spec.ipFamilies[0]", type: "Invalid value", contains: "not configured on this cluster" },
      ],
    },
    {
      name: "ipFamilies duplicate",
      yaml: svc(`${PORT}\nipFamilyPolicy: PreferDualStack\nipFamilies: [IPv4, IPv4]`),
      errors: [{ field: "spec.ipFamilies[1]", type: "Duplicate value" }],
    },
    {
      name: "ipFamilies unsupported value",
      yaml: svc(`${PORT}\nipFamilies: [IPv5]`),
      errors: [{ field: "spec.ipFamilies[0]", type: "Unsupported value", contains: '"IPv4", "IPv6"' }],
    },
    {
      name: "initIPFamilyFields: SingleStack with two clusterIPs",
      yaml: svc(
        `${PORT}\nipFamilyPolicy: SingleStack\nclusterIP: 10.96.0.20\nclusterIPs: [10.96.0.20, "fd00:10:96::20"]`,
      ),
      errors: [
        {
          field: "spec.ipFamilyPolicy",
          type: "Invalid value",
          contains: "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
        },
      ],
    },
    {
      name: "dual-stack clusterIPs with RequireDualStack",
      yaml: svc(
        `${PORT}\nipFamilyPolicy: RequireDualStack\nclusterIP: 10.96.0.20\nclusterIPs: [10.96.0.20, "fd00:10:96::20"]`,
      ),
      errors: [],
    },
    {
      name: "clusterIPs of one family",
      yaml: svc(
        `${PORT}\nipFamilyPolicy: PreferDualStack\nclusterIP: 10.96.0.20\nclusterIPs: [10.96.0.20, 10.96.0.21]`,
      ),
      errors: [
        {
          field: "spec.clusterIPs",
          type: "Invalid value",
          contains: "may specify no more than one IP for each IP family",
        },
      ],
    },
    {
      name: "clusterIPs[0] must match clusterIP",
      yaml: svc(`${PORT}\nclusterIP: 10.96.0.20\nclusterIPs: [10.96.0.21]`),
      errors: [
        { field: "spec.clusterIPs", type: "Invalid value", contains: "first value must match `clusterIP`" },
      ],
    },
    {
      name: "clusterIPs without clusterIP (normalizeClusterIPs does not fill the singular on create)",
      yaml: svc(`${PORT}\nclusterIPs: [10.96.0.21]`),
      errors: [
        {
          field: "spec.clusterIPs",
          type: "Invalid value",
          contains: "must be empty when `clusterIP` is not specified",
        },
      ],
    },
    {
      name: "clusterIP not an IP (IsValidIPForLegacyField)",
      yaml: svc(`${PORT}\nclusterIP: 10.96.0.300`),
      errors: [
        {
          field: "spec.clusterIPs[0]",
          type: "Invalid value",
          contains: "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        },
      ],
    },
    {
      name: "expected an IPv6 value as indicated by ipFamilies[0]",
      yaml: svc(`${PORT}\nclusterIP: 10.96.0.20\nipFamilies: [IPv6]`),
      errors: [
        {
          field: "spec.clusterIPs[0]",
          type: "Invalid value",
          contains: "expected an IPv6 value as indicated by `ipFamilies[0]`",
        },
      ],
    },
    {
      name: "initIPFamilyFields: a clusterIP of a family the cluster lacks",
      yaml: svc(`${PORT}\nclusterIP: "fd00:10:96::20"`),
      config: V4,
      errors: [
        {
          field: "spec.clusterIPs[0]",
          type: "Invalid value",
          contains: "IPv6 is not configured on this cluster",
        },
      ],
    },
  ]);
});

describe("ClusterIP allocation (alloc.go allocIPs with the ServiceCIDR allocator)", () => {
  runTable([
    {
      name: "a clusterIP in the static band of 10.96.0.0/12",
      yaml: svc(`${PORT}\nclusterIP: 10.96.0.20`),
      errors: [],
    },
    {
      name: "a clusterIP outside every ServiceCIDR",
      yaml: svc(`${PORT}\nclusterIP: 10.0.0.10`),
      errors: [
        {
          field: "spec.clusterIPs",
          type: "Invalid value",
          contains: "failed to allocate IP 10.0.0.10: the provided network does not match the current range",
        },
      ],
    },
    {
      name: "prefixContainsIP: the network address is not in the range",
      yaml: svc(`${PORT}\nclusterIP: 10.96.0.0`),
      errors: [
        {
          field: "spec.clusterIPs",
          type: "Invalid value",
          contains: "the provided network does not match the current range",
        },
      ],
    },
    {
      name: "prefixContainsIP: the IPv4 broadcast address is not in the range",
      yaml: svc(`${PORT}\nclusterIP: 10.111.255.255`),
      errors: [
        { field: "spec.clusterIPs", type: "Invalid value", contains: "does not match the current range" },
      ],
    },
    {
      name: "the first address is the kubernetes Service's",
      yaml: svc(`${PORT}\nclusterIP: 10.96.0.1`),
      errors: [
        {
          field: "spec.clusterIPs",
          type: "Invalid value",
          contains: "failed to allocate IP 10.96.0.1: provided IP is already allocated",
        },
      ],
    },
    {
      name: "two Services asking for one clusterIP: the second fails",
      yaml: `${svc(`${PORT}\nclusterIP: 10.96.0.30`, "name: a")}---\n${svc(`${PORT}\nclusterIP: 10.96.0.30`, "name: b")}`,
      errors: [
        { field: "spec.clusterIPs", type: "Invalid value", contains: "provided IP is already allocated" },
      ],
    },
    {
      name: "a rejected Service holds no address (the allocation transaction is reverted)",
      yaml: `${svc(`${PORT}\nclusterIP: 10.96.0.30\nsessionAffinity: Sticky`, "name: a")}---\n${svc(`${PORT}\nclusterIP: 10.96.0.30`, "name: b")}`,
      errors: [{ field: "spec.sessionAffinity", type: "Unsupported value" }],
    },
    {
      name: "TestValidateServiceCreate 'LoadBalancer type cannot have None ClusterIP'",
      yaml: svc(`type: LoadBalancer\n${PORT}\nclusterIP: None`),
      errors: [
        {
          field: "spec.clusterIPs[0]",
          type: "Invalid value",
          contains: "may not be set to 'None' for LoadBalancer services",
        },
      ],
    },
    {
      name: "NodePort type cannot have None ClusterIP",
      yaml: svc(`type: NodePort\n${PORT}\nclusterIP: None`),
      errors: [
        {
          field: "spec.clusterIPs[0]",
          type: "Invalid value",
          contains: "may not be set to 'None' for NodePort services",
        },
      ],
    },
    { name: "a headless Service needs no ports", yaml: svc(`clusterIP: None`), errors: [] },
  ]);
});

describe("node port allocation (initNodePorts) and validateService port rules", () => {
  runTable([
    {
      name: "TestValidateServiceCreate 'invalid cluster service with NodePort'",
      yaml: svc(`type: ClusterIP\nports: [{name: http, port: 80, nodePort: 30080}]`),
      errors: [
        {
          field: "spec.ports[0].nodePort",
          type: "Forbidden",
          contains: "may not be used when `type` is 'ClusterIP'",
        },
      ],
    },
    {
      name: "a nodePort in range",
      yaml: svc(`type: NodePort\nports: [{port: 80, nodePort: 30080}]`),
      errors: [],
    },
    {
      name: "portallocator: nodePort outside --service-node-port-range",
      yaml: svc(`type: NodePort\nports: [{port: 80, nodePort: 40000}]`),
      errors: [
        {
          field: "spec.ports[0].nodePort",
          type: "Invalid value",
          contains: "provided port is not in the valid range. The range of valid ports is 30000-32767",
        },
      ],
    },
    {
      name: "portallocator: two Services asking for one nodePort",
      yaml: `${svc(`type: NodePort\nports: [{port: 80, nodePort: 30080}]`, "name: a")}---\n${svc(`type: NodePort\nports: [{port: 80, nodePort: 30080}]`, "name: b")}`,
      errors: [
        {
          field: "spec.ports[0].nodePort",
          type: "Invalid value",
          contains: "provided port is already allocated",
        },
      ],
    },
    {
      name: "allocHealthCheckNodePort: a healthCheckNodePort another Service holds as nodePort",
      yaml: `${svc(`type: NodePort\nports: [{port: 80, nodePort: 30080}]`, "name: a")}---\n${svc(`type: LoadBalancer\n${PORT}\nexternalTrafficPolicy: Local\nhealthCheckNodePort: 30080`, "name: b")}`,
      errors: [
        {
          field: "spec.healthCheckNodePort",
          type: "Internal error",
          contains:
            "failed to allocate requested HealthCheck NodePort 30080: provided port is already allocated",
        },
      ],
    },
    {
      name: "initNodePorts: a nodePort another Service holds as healthCheckNodePort",
      yaml: `${svc(`type: LoadBalancer\n${PORT}\nexternalTrafficPolicy: Local\nhealthCheckNodePort: 30080`, "name: a")}---\n${svc(`type: NodePort\nports: [{port: 80, nodePort: 30080}]`, "name: b")}`,
      errors: [
        {
          field: "spec.ports[0].nodePort",
          type: "Invalid value",
          contains: "provided port is already allocated",
        },
      ],
    },
    {
      name: "initNodePorts: TCP and UDP of one port share the nodePort",
      yaml: svc(
        `type: NodePort\nports: [{name: dns, port: 53, protocol: UDP, nodePort: 30053}, {name: dns-tcp, port: 53, protocol: TCP, nodePort: 30053}]`,
      ),
      errors: [],
    },
    {
      name: "duplicate nodePort for one protocol (validateService)",
      yaml: svc(
        `type: NodePort\nports: [{name: a, port: 80, nodePort: 30080}, {name: b, port: 80, protocol: TCP, nodePort: 30080}]`,
      ),
      errors: [
        { field: "spec.ports[1].nodePort", type: "Duplicate value" },
        { field: "spec.ports[1]", type: "Duplicate value" },
      ],
    },
    {
      name: "validateServicePort: port 0 and port 65536",
      yaml: svc(`ports: [{name: a, port: 0}, {name: b, port: 65536}]`),
      errors: [
        {
          field: "spec.ports[0].port",
          type: "Invalid value",
          contains: "must be between 1 and 65535, inclusive",
        },
        {
          field: "spec.ports[1].port",
          type: "Invalid value",
          contains: "must be between 1 and 65535, inclusive",
        },
      ],
    },
    {
      name: "validateServicePort: names required with more than one port",
      yaml: svc(`ports: [{port: 80}, {port: 81}]`),
      errors: [
        { field: "spec.ports[0].name", type: "Required value" },
        { field: "spec.ports[1].name", type: "Required value" },
      ],
    },
    { name: "one port needs no name", yaml: svc(`ports: [{port: 80}]`), errors: [] },
    {
      name: "validateServicePort: name must be a DNS-1123 label, and unique",
      yaml: svc(`ports: [{name: Http, port: 80}, {name: web, port: 81}, {name: web, port: 82}]`),
      errors: [
        {
          field: "spec.ports[0].name",
          type: "Invalid value",
          contains: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters",
        },
        { field: "spec.ports[2].name", type: "Duplicate value" },
      ],
    },
    {
      name: "validateServicePort: protocol is case-sensitive",
      yaml: svc(`ports: [{port: 80, protocol: tcp}]`),
      errors: [
        { field: "spec.ports[0].protocol", type: "Unsupported value", contains: '"SCTP", "TCP", "UDP"' },
      ],
    },
    {
      name: "ValidatePortNumOrName: a quoted number is a port name",
      yaml: svc(`ports: [{port: 80, targetPort: "8080"}]`),
      errors: [
        {
          field: "spec.ports[0].targetPort",
          type: "Invalid value",
          contains: "must contain at least one letter (a-z)",
        },
      ],
    },
    {
      name: "ValidatePortNumOrName: IANA_SVC_NAME rules",
      yaml: svc(`ports: [{port: 80, targetPort: http--web-server-x}]`),
      errors: [
        {
          field: "spec.ports[0].targetPort",
          type: "Invalid value",
          contains: "must be no more than 15 characters",
        },
        {
          field: "spec.ports[0].targetPort",
          type: "Invalid value",
          contains: "must not contain consecutive hyphens",
        },
      ],
    },
    {
      name: "SetDefaults_Service: targetPort 0 becomes the port",
      yaml: svc(`ports: [{port: 80, targetPort: 0}]`),
      errors: [],
    },
    {
      name: "validateService: ports are required unless headless or ExternalName",
      yaml: svc(``),
      errors: [{ field: "spec.ports", type: "Required value" }],
    },
    {
      name: "validateService: type unsupported",
      yaml: svc(`type: Internal\n${PORT}`),
      errors: [
        {
          field: "spec.type",
          type: "Unsupported value",
          contains: '"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
        },
      ],
    },
  ]);
});

describe("validateService: other fields", () => {
  runTable([
    {
      name: "ExternalName with a CNAME",
      yaml: svc(`type: ExternalName\nexternalName: db.example.com.`),
      errors: [],
    },
    {
      name: "ExternalName requires externalName",
      yaml: svc(`type: ExternalName`),
      errors: [{ field: "spec.externalName", type: "Required value" }],
    },
    {
      name: "ExternalName with a clusterIP",
      yaml: svc(`type: ExternalName\nexternalName: db.example.com\nclusterIP: 10.96.0.20`),
      errors: [
        { field: "spec.clusterIPs", type: "Forbidden", contains: "may not be set for ExternalName services" },
      ],
    },
    {
      name: "ExternalName that is not a DNS subdomain",
      yaml: svc(`type: ExternalName\nexternalName: "db_1.example.com"`),
      errors: [{ field: "spec.externalName", type: "Invalid value", contains: "RFC 1123 subdomain" }],
    },
    {
      name: "externalIPs: not an IP, and ValidateEndpointIP's loopback rule",
      yaml: svc(`${PORT}\nexternalIPs: [nope, 127.0.0.1]`),
      errors: [
        { field: "spec.externalIPs[0]", type: "Invalid value", contains: "must be a valid IP address" },
        {
          field: "spec.externalIPs[1]",
          type: "Invalid value",
          contains: "may not be in the loopback range (127.0.0.0/8, ::1/128)",
        },
      ],
    },
    {
      name: "loadBalancerSourceRanges only for LoadBalancer (upstream spells the path with a capital L)",
      yaml: svc(`${PORT}\nloadBalancerSourceRanges: [203.0.113.0/24]`),
      errors: [
        {
          field: "spec.LoadBalancerSourceRanges",
          type: "Forbidden",
          contains: "may only be used when `type` is 'LoadBalancer'",
        },
      ],
    },
    {
      name: "loadBalancerSourceRanges: IsValidCIDRForLegacyField",
      yaml: svc(`type: LoadBalancer\n${PORT}\nloadBalancerSourceRanges: [203.0.113.0/24, 203.0.113.0]`),
      errors: [
        {
          field: "spec.LoadBalancerSourceRanges[1]",
          type: "Invalid value",
          contains: "must be a valid CIDR value",
        },
      ],
    },
    {
      name: "loadBalancerSourceRanges on a LoadBalancer",
      yaml: svc(`type: LoadBalancer\n${PORT}\nloadBalancerSourceRanges: [" 203.0.113.0/24"]`),
      errors: [],
    },
    {
      name: "allocateLoadBalancerNodePorts only for LoadBalancer",
      yaml: svc(`${PORT}\nallocateLoadBalancerNodePorts: false`),
      errors: [{ field: "spec.allocateLoadBalancerNodePorts", type: "Forbidden" }],
    },
    {
      name: "validateLoadBalancerClassField: only for LoadBalancer, and a qualified name",
      yaml: `${svc(`${PORT}\nloadBalancerClass: example.com/lb`, "name: a")}---\n${svc(`type: LoadBalancer\n${PORT}\nloadBalancerClass: "bad class"`, "name: b")}`,
      errors: [
        {
          field: "spec.loadBalancerClass",
          type: "Forbidden",
          contains: "may only be used when `type` is 'LoadBalancer'",
        },
        {
          field: "spec.loadBalancerClass",
          type: "Invalid value",
          contains: "name part must consist of alphanumeric characters",
        },
      ],
    },
    {
      name: "topology-mode must match topology-aware-hints when both are set",
      yaml: svc(
        PORT,
        `name: web, annotations: {service.kubernetes.io/topology-mode: Auto, service.kubernetes.io/topology-aware-hints: Disabled}`,
      ),
      errors: [
        {
          field: "metadata.annotations[service.kubernetes.io/topology-mode]",
          type: "Invalid value",
          contains:
            "must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified",
        },
      ],
    },
    {
      name: "ValidateLabels on spec.selector",
      yaml: svc(`${PORT}\nselector: {app: "web server"}`),
      errors: [
        { field: "spec.selector", type: "Invalid value", contains: "a valid label must be an empty string" },
      ],
    },
    {
      name: "ValidateServiceName is NameIsDNS1035Label in 1.35 (RelaxedServiceNameValidation is alpha)",
      yaml: svc(PORT, "name: 1web"),
      errors: [
        {
          field: "metadata.name",
          type: "Invalid value",
          contains:
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character",
        },
      ],
    },
    {
      name: "ValidateAnnotations: keys are qualified names",
      yaml: svc(PORT, 'name: web, annotations: {"bad key": x, example.com/ok: y}'),
      errors: [
        {
          field: "metadata.annotations",
          type: "Invalid value",
          contains: "name part must consist of alphanumeric characters",
        },
      ],
    },
    {
      name: "ValidateAnnotationsSize: at most 256 KiB in total",
      yaml: svc(PORT, `name: web, annotations: {big: "${"x".repeat(262_145)}"}`),
      errors: [
        { field: "metadata.annotations", type: "Too long", contains: "may not be more than 262144 bytes" },
      ],
    },
    {
      name: "annotations with prefixed keys",
      yaml: svc(PORT, "name: web, annotations: {example.com/owner: team-a}"),
      errors: [],
    },
    {
      name: "metadata.namespace must be a DNS-1123 label",
      yaml: svc(PORT, "name: web, namespace: Shop"),
      errors: [{ field: "metadata.namespace", type: "Invalid value" }],
    },
  ]);
});

describe("request decoding and resource mapping", () => {
  runTable([
    {
      name: "a quoted port does not decode into int32",
      yaml: svc(`ports: [{port: "80"}]`),
      errors: [
        {
          field: "spec.ports[0].port",
          type: "Invalid value",
          contains: "cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32",
        },
      ],
    },
    {
      name: "a number as label value does not decode into map[string]string",
      yaml: svc(PORT, "name: web, labels: {version: 1.5}"),
      errors: [{ field: "metadata.labels[version]", type: "Invalid value", contains: "of type string" }],
    },
    {
      name: "NetworkPolicy from extensions/v1beta1 is no longer served",
      yaml: "apiVersion: extensions/v1beta1\nkind: NetworkPolicy\nmetadata: {name: np}\nspec: {podSelector: {}}\n",
      errors: [
        {
          field: "apiVersion",
          type: "Invalid value",
          contains: 'no matches for kind "NetworkPolicy" in version "extensions/v1beta1"',
        },
      ],
    },
  ]);
});

function np(spec: string, name = "np"): string {
  return `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: ${name}, namespace: x}
spec:
${spec
  .split("\n")
  .filter(Boolean)
  .map((l) => `  ${l}`)
  .join("\n")}
`;
}

describe("ValidateNetworkPolicy", () => {
  runTable([
    {
      name: "TestValidateNetworkPolicy: a valid policy with every kind of peer and port",
      yaml: np(`podSelector: {matchLabels: {app: db}}
policyTypes: [Ingress, Egress]
ingress:
- from:
  - podSelector: {matchExpressions: [{key: app, operator: In, values: [web]}]}
  - namespaceSelector: {matchLabels: {team: a}}
    podSelector: {}
  - ipBlock: {cidr: 192.168.0.0/16, except: [192.168.1.0/24]}
  ports: [{port: 5432}, {protocol: UDP, port: 53, endPort: 60}, {port: http}, {protocol: SCTP}]
egress:
- to: [{ipBlock: {cidr: "fd00::/8"}}]`),
      errors: [],
    },
    {
      name: "ValidateIPBlock: host bits in cidr are accepted while StrictIPCIDRValidation is off (1.35)",
      yaml: np(`podSelector: {}\ningress: [{from: [{ipBlock: {cidr: 10.0.0.1/8}}]}]`),
      errors: [],
    },
    {
      name: "ValidateNetworkPolicyPort: endPort must be >= port",
      yaml: np(`podSelector: {}\ningress: [{ports: [{port: 8080, endPort: 80}]}]`),
      errors: [
        {
          field: "spec.ingress[0].ports[0].endPort",
          type: "Invalid value",
          contains: "must be greater than or equal to `port`",
        },
      ],
    },
    {
      name: "ValidateNetworkPolicyPort: endPort with a named port",
      yaml: np(`podSelector: {}\ningress: [{ports: [{port: http, endPort: 90}]}]`),
      errors: [
        {
          field: "spec.ingress[0].ports[0].endPort",
          type: "Invalid value",
          contains: "may not be specified when `port` is non-numeric",
        },
      ],
    },
    {
      name: "ValidateNetworkPolicyPort: endPort without port",
      yaml: np(`podSelector: {}\negress: [{ports: [{endPort: 90}]}]`),
      errors: [
        {
          field: "spec.egress[0].ports[0].endPort",
          type: "Invalid value",
          contains: "may not be specified when `port` is not specified",
        },
      ],
    },
    {
      name: "ValidateNetworkPolicyPort: protocol and port number",
      yaml: np(`podSelector: {}\ningress: [{ports: [{protocol: ICMP, port: 0}]}]`),
      errors: [
        {
          field: "spec.ingress[0].ports[0].protocol",
          type: "Unsupported value",
          contains: 'supported values: "TCP", "UDP", "SCTP"',
        },
        {
          field: "spec.ingress[0].ports[0].port",
          type: "Invalid value",
          contains: "must be between 1 and 65535, inclusive",
        },
      ],
    },
    {
      name: "ValidateNetworkPolicyPort: a named port must be an IANA_SVC_NAME",
      yaml: np(`podSelector: {}\ningress: [{ports: [{port: "80"}]}]`),
      errors: [
        {
          field: "spec.ingress[0].ports[0].port",
          type: "Invalid value",
          contains: "must contain at least one letter (a-z)",
        },
      ],
    },
    {
      name: "ValidateNetworkPolicyPeer: an empty peer (a null podSelector is absent)",
      yaml: np(`podSelector: {}\ningress: [{from: [{}, {podSelector: null}]}]`),
      errors: [
        { field: "spec.ingress[0].from[0]", type: "Required value", contains: "must specify a peer" },
        { field: "spec.ingress[0].from[1]", type: "Required value", contains: "must specify a peer" },
      ],
    },
    {
      name: "ValidateNetworkPolicyPeer: ipBlock with another peer",
      yaml: np(`podSelector: {}\ningress: [{from: [{ipBlock: {cidr: 10.0.0.0/8}, namespaceSelector: {}}]}]`),
      errors: [
        {
          field: "spec.ingress[0].from[0]",
          type: "Forbidden",
          contains: "may not specify both ipBlock and another peer",
        },
      ],
    },
    {
      name: "ValidateIPBlock: cidr required and valid",
      yaml: np(`podSelector: {}\ningress: [{from: [{ipBlock: {cidr: ""}}, {ipBlock: {cidr: 10.0.0.0/33}}]}]`),
      errors: [
        { field: "spec.ingress[0].from[0].ipBlock.cidr", type: "Required value" },
        {
          field: "spec.ingress[0].from[1].ipBlock.cidr",
          type: "Invalid value",
          contains: "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        },
      ],
    },
    {
      name: "ValidateIPBlock: except must be a strict subset of cidr (outside, equal, other family)",
      yaml: np(
        `podSelector: {}\ningress: [{from: [{ipBlock: {cidr: 10.0.0.0/8, except: [192.168.0.0/16, 10.0.0.0/8, "fd00::/16", 10.1.0.0/16]}}]}]`,
      ),
      errors: [
        {
          field: "spec.ingress[0].from[0].ipBlock.except[0]",
          type: "Invalid value",
          contains: "must be a strict subset of `cidr`",
        },
        {
          field: "spec.ingress[0].from[0].ipBlock.except[1]",
          type: "Invalid value",
          contains: "must be a strict subset of `cidr`",
        },
        {
          field: "spec.ingress[0].from[0].ipBlock.except[2]",
          type: "Invalid value",
          contains: "must be a strict subset of `cidr`",
        },
      ],
    },
    {
      name: "ValidateLabelSelectorRequirement: operator, values and key",
      yaml: np(
        `podSelector: {matchExpressions: [{key: app, operator: Equals, values: [a]}, {key: tier, operator: In}, {key: "-x", operator: Exists, values: [a]}]}`,
      ),
      errors: [
        {
          field: "spec.podSelector.matchExpressions[0].operator",
          type: "Invalid value",
          contains: "not a valid selector operator",
        },
        {
          field: "spec.podSelector.matchExpressions[1].values",
          type: "Required value",
          contains: "must be specified when `operator` is 'In' or 'NotIn'",
        },
        {
          field: "spec.podSelector.matchExpressions[2].values",
          type: "Forbidden",
          contains: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        },
        {
          field: "spec.podSelector.matchExpressions[2].key",
          type: "Invalid value",
          contains: "name part must consist of alphanumeric characters",
        },
      ],
    },
    {
      name: "ValidateLabelSelectorRequirement: values must be label values",
      yaml: np(`podSelector: {matchExpressions: [{key: app, operator: In, values: ["a b"]}]}`),
      errors: [
        {
          field: "spec.podSelector.matchExpressions[0].values[0]",
          type: "Invalid value",
          contains: "a valid label must be an empty string",
        },
      ],
    },
    {
      name: "ValidateNetworkPolicySpec: policyTypes",
      yaml: `${np(`podSelector: {}\npolicyTypes: [Ingress, Egress, Ingress]`, "a")}---\n${np(`podSelector: {}\npolicyTypes: [Sideways]`, "b")}`,
      errors: [
        {
          field: "spec.policyTypes",
          type: "Invalid value",
          contains: "may not specify more than two policyTypes",
        },
        {
          field: "spec.policyTypes[0]",
          type: "Unsupported value",
          contains: 'supported values: "Ingress", "Egress"',
        },
      ],
    },
    {
      name: "ValidateNetworkPolicyName is NameIsDNSSubdomain",
      yaml: np(`podSelector: {}`, "Allow_All"),
      errors: [{ field: "metadata.name", type: "Invalid value", contains: "a lowercase RFC 1123 subdomain" }],
    },
  ]);
});

function slice(body: string, name = "web-abc"): string {
  return `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: ${name}, labels: {kubernetes.io/service-name: web}}
${body}
`;
}

describe("ValidateEndpointSlice", () => {
  runTable([
    {
      name: "TestValidateEndpointSlice: a valid IPv4 slice",
      yaml: slice(`addressType: IPv4
endpoints:
- {addresses: [10.244.1.5], nodeName: node-a, zone: a, hostname: web-0, hints: {forZones: [{name: a}]}, conditions: {ready: true}}
ports: [{name: http, port: 8080}, {name: dns, port: 53, protocol: UDP}]`),
      errors: [],
    },
    {
      name: "a valid FQDN slice",
      yaml: slice(`addressType: FQDN\nendpoints: [{addresses: [db.example.com]}]`),
      errors: [],
    },
    {
      name: "validateAddressType",
      yaml: slice(`addressType: IP`),
      errors: [{ field: "addressType", type: "Unsupported value", contains: '"FQDN", "IPv4", "IPv6"' }],
    },
    {
      name: "validateEndpoints: addresses required, of the slice's family, not special",
      yaml: slice(
        `addressType: IPv4\nendpoints: [{addresses: []}, {addresses: ["fd00::1", 127.0.0.1, 169.254.1.1]}]`,
      ),
      errors: [
        {
          field: "endpoints[0].addresses",
          type: "Required value",
          contains: "must contain at least 1 address",
        },
        {
          field: "endpoints[1].addresses[0]",
          type: "Invalid value",
          contains: "must be a valid IPv4 address",
        },
        {
          field: "endpoints[1].addresses[1]",
          type: "Invalid value",
          contains: "may not be in the loopback range",
        },
        {
          field: "endpoints[1].addresses[2]",
          type: "Invalid value",
          contains: "may not be in the link-local range (169.254.0.0/16, fe80::/10)",
        },
      ],
    },
    {
      name: "validateEndpoints: FQDN needs two labels",
      yaml: slice(`addressType: FQDN\nendpoints: [{addresses: [db]}]`),
      errors: [
        {
          field: "endpoints[0].addresses[0]",
          type: "Invalid value",
          contains: "should be a domain with at least two segments separated by dots",
        },
      ],
    },
    {
      name: "validateEndpoints: nodeName and hostname",
      yaml: slice(`addressType: IPv4\nendpoints: [{addresses: [10.0.0.1], nodeName: Node_A, hostname: a.b}]`),
      errors: [
        { field: "endpoints[0].nodeName", type: "Invalid value", contains: "RFC 1123 subdomain" },
        { field: "endpoints[0].hostname", type: "Invalid value", contains: "must not contain dots" },
      ],
    },
    {
      name: "validateHints: duplicate zone, too many zones",
      yaml: slice(`addressType: IPv4
endpoints:
- {addresses: [10.0.0.1], hints: {forZones: [{name: a}, {name: a}]}}
- {addresses: [10.0.0.2], hints: {forZones: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}, {name: i}]}}`),
      errors: [
        { field: "endpoints[0].hints.forZones[1].name", type: "Duplicate value" },
        { field: "endpoints[1].hints.forZones", type: "Too many", contains: "must have at most 8 items" },
      ],
    },
    {
      name: "validatePorts: names unique (empty included), protocol supported",
      yaml: slice(`addressType: IPv4\nports: [{port: 80}, {port: 81}, {name: x, port: 82, protocol: ICMP}]`),
      errors: [
        { field: "ports[1].name", type: "Duplicate value" },
        { field: "ports[2].protocol", type: "Unsupported value", contains: '"SCTP", "TCP", "UDP"' },
      ],
    },
  ]);
});

describe("object names (Validate<Kind>Name)", () => {
  runTable([
    {
      name: "a Deployment name may hold dots (NameIsDNSSubdomain)",
      yaml: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web.v2}\nspec: {}\n",
      errors: [],
    },
    {
      name: "a StatefulSet name may not (NameIsDNSLabel)",
      yaml: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web.v2}\nspec: {}\n",
      errors: [{ field: "metadata.name", type: "Invalid value", contains: "must not contain dots" }],
    },
    {
      name: "ValidateNamespaceName",
      yaml: "apiVersion: v1\nkind: Namespace\nmetadata: {name: Shop}\n",
      errors: [{ field: "metadata.name", type: "Invalid value", contains: "a lowercase RFC 1123 label" }],
    },
    {
      name: "a Pod name longer than 253 bytes",
      yaml: `apiVersion: v1\nkind: Pod\nmetadata: {name: ${"a".repeat(254)}}\nspec: {containers: [{name: c, image: x}]}\n`,
      errors: [
        { field: "metadata.name", type: "Invalid value", contains: "must be no more than 253 characters" },
      ],
    },
    {
      name: "a name that looks like HTML is just an invalid name",
      yaml: `apiVersion: v1\nkind: Pod\nmetadata: {name: "<script>alert(1)</script>", labels: {x: "<b>"}}\nspec: {}\n`,
      errors: [
        { field: "metadata.name", type: "Invalid value" },
        {
          field: "metadata.labels",
          type: "Invalid value",
          contains: "a valid label must be an empty string",
        },
      ],
    },
    {
      name: "ValidateCronJob: names of at most 52 characters",
      yaml: `apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: ${"c".repeat(53)}}\nspec: {}\n`,
      errors: [
        { field: "metadata.name", type: "Invalid value", contains: "must be no more than 52 characters" },
      ],
    },
  ]);
});

describe("findings point at their line", () => {
  it("uses the line of the field, and of clusterIP when clusterIPs is not written", () => {
    const got = errorsOf(svc(`type: ClusterIP\n${PORT}\nclusterIP: 10.0.0.9\nexternalTrafficPolicy: Local`));
    const by = Object.fromEntries(got.map((e) => [e.field, e.line]));
    expect(by["spec.externalTrafficPolicy"]).toBe(9);
    expect(by["spec.clusterIPs"]).toBe(8);
    expect(got[0]).toMatchObject({
      kind: "Service",
      namespace: "default",
      name: "web",
      file: "t.yaml",
      doc: 0,
    });
  });
});

describe("findings of unchanged docs, with the parse cache", () => {
  // validateModel keeps an object's findings by its parsed value and where its doc stands; the parse cache
  // keeps an unchanged doc's values from one text to the next. A kept finding must still name its line.
  const bad = (name: string) =>
    `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: ${name}}\nspec:\n  podSelector: {}\n  policyTypes: [Sideways]\n`;
  const good = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n`;
  const run = (cache: YamlPartCache, text: string) =>
    validateModel(buildModel(parseManifests([{ name: "t.yaml", text }], { cache })), {
      lint: false,
    }).errors.map((e) => `${e.name} ${e.field} ${e.line}`);

  it("names the doc's new line when an edit above moves it, and the same line when it does not", () => {
    const cache = new YamlPartCache();
    const before = [good, bad("p"), bad("q")].join("---\n");
    expect(run(cache, before)).toEqual(["p spec.policyTypes[0] 11", "q spec.policyTypes[0] 18"]);
    // A line added in the first doc moves both policies; a value changed in place moves nothing.
    const moved = [`${good}  labels: {x: y}\n`, bad("p"), bad("q")].join("---\n");
    expect(run(cache, moved)).toEqual(["p spec.policyTypes[0] 12", "q spec.policyTypes[0] 19"]);
    const inPlace = moved.replace("{x: y}", "{x: z}");
    expect(run(cache, inPlace)).toEqual(run(new YamlPartCache(), inPlace));
    // The second policy fixed: its finding goes, the first's stays.
    const fixed = inPlace.replace(/Sideways(?![\s\S]*Sideways)/, "Ingress");
    expect(run(cache, fixed)).toEqual(["p spec.policyTypes[0] 12"]);
  });
});
