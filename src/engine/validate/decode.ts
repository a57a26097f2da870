/**
 * Request decoding before validation: the apiserver turns the JSON body into
 * Go structs (sigs.k8s.io/json, case-sensitive) and rejects the whole object
 * when a value has the wrong JSON type ("json: cannot unmarshal string into Go
 * struct field ServicePort.spec.ports.port of type int32"). With kubectl's
 * default server-side field validation (Strict) an unknown field is rejected
 * too ("strict decoding error: unknown field"); other clients only get a
 * warning, so unknown fields are reported as warnings here.
 */
import { invalid, type FieldError, type PathSegment } from "./errors.ts";

export type Schema =
  | "string"
  | "int32"
  | "int64"
  | "bool"
  | "intOrString"
  | "any"
  | { struct: string; fields: Record<string, Schema>; open?: boolean }
  | { list: Schema }
  | { map: Schema; goType: string };

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

export interface DecodeResult {
  errors: FieldError[];
  /** Field paths (with indices) that the Go type does not have. */
  unknown: PathSegment[][];
}

function jsonType(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return Number.isInteger(v) ? "number" : `number ${v}`;
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

function goTypeOf(s: Schema): string {
  if (typeof s === "string")
    return s === "intOrString" ? "intstr.IntOrString" : s === "any" ? "interface {}" : s;
  if ("struct" in s) return `v1.${s.struct}`;
  if ("list" in s) return `[]${goTypeOf(s.list)}`;
  return s.goType;
}

/** Checks `value` against `schema`; `struct`/`dotted` name the Go struct and JSON path for messages. */
export function decode(value: unknown, schema: Schema, path: PathSegment[] = []): DecodeResult {
  const out: DecodeResult = { errors: [], unknown: [] };
  walk(value, schema, path, "", "", out);
  return out;
}

function walk(
  value: unknown,
  schema: Schema,
  path: PathSegment[],
  struct: string,
  dotted: string,
  out: DecodeResult,
): void {
  if (value === null || value === undefined || schema === "any") return;
  const fail = (goType: string, shown: unknown = value) => {
    const where = struct ? `Go struct field ${struct}.${dotted}` : "Go value";
    out.errors.push(
      invalid(
        path,
        shown,
        `cannot unmarshal ${jsonType(value)} into ${where} of type ${goType}`,
        "sigs.k8s.io/json Unmarshal (request decoding, before validation)",
      ),
    );
  };
  if (typeof schema === "string") {
    switch (schema) {
      case "string":
        if (typeof value !== "string") fail("string");
        return;
      case "bool":
        if (typeof value !== "boolean") fail("bool");
        return;
      case "int32":
      case "int64":
        if (typeof value !== "number" || !Number.isInteger(value)) fail(schema);
        else if (schema === "int32" && (value > INT32_MAX || value < INT32_MIN)) fail("int32");
        return;
      case "intOrString":
        // IntOrString.UnmarshalJSON: a JSON string is a name, anything else must decode as int32.
        if (typeof value === "string") return;
        if (typeof value !== "number" || !Number.isInteger(value) || value > INT32_MAX || value < INT32_MIN)
          fail("int32");
        return;
    }
  }
  if ("list" in schema) {
    if (!Array.isArray(value)) return fail(goTypeOf(schema));
    value.forEach((item, i) => walk(item, schema.list, [...path, i], struct, dotted, out));
    return;
  }
  if (typeof value !== "object" || Array.isArray(value)) return fail(goTypeOf(schema));
  const obj = value as Record<string, unknown>;
  if ("map" in schema) {
    for (const [k, v] of Object.entries(obj)) walk(v, schema.map, [...path, { key: k }], struct, dotted, out);
    return;
  }
  for (const [k, v] of Object.entries(obj)) {
    // Own fields only: a key named `constructor` or `toString` is unknown, not Object.prototype's.
    const child = Object.hasOwn(schema.fields, k) ? schema.fields[k] : undefined;
    const childDotted = dotted ? `${dotted}.${k}` : k;
    if (child === undefined) {
      if (!schema.open) out.unknown.push([...path, k]);
      continue;
    }
    walk(v, child, [...path, k], schema.struct, childDotted, out);
  }
}

const stringMap: Schema = { map: "string", goType: "map[string]string" };
const strings: Schema = { list: "string" };

export const LABEL_SELECTOR: Schema = {
  struct: "LabelSelector",
  fields: {
    matchLabels: stringMap,
    matchExpressions: {
      list: {
        struct: "LabelSelectorRequirement",
        fields: { key: "string", operator: "string", values: strings },
      },
    },
  },
};

export const OBJECT_META: Schema = {
  struct: "ObjectMeta",
  fields: {
    name: "string",
    generateName: "string",
    namespace: "string",
    selfLink: "string",
    uid: "string",
    resourceVersion: "string",
    generation: "int64",
    creationTimestamp: "any",
    deletionTimestamp: "any",
    deletionGracePeriodSeconds: "int64",
    labels: stringMap,
    annotations: stringMap,
    ownerReferences: "any",
    finalizers: strings,
    managedFields: "any",
  },
};

function topLevel(kind: string, spec: Schema): Schema {
  return {
    struct: kind,
    fields: { apiVersion: "string", kind: "string", metadata: OBJECT_META, spec, status: "any" },
  };
}

/** core/v1 Service (1.35). */
export const SERVICE: Schema = topLevel("Service", {
  struct: "ServiceSpec",
  fields: {
    ports: {
      list: {
        struct: "ServicePort",
        fields: {
          name: "string",
          protocol: "string",
          appProtocol: "string",
          port: "int32",
          targetPort: "intOrString",
          nodePort: "int32",
        },
      },
    },
    selector: stringMap,
    clusterIP: "string",
    clusterIPs: strings,
    type: "string",
    externalIPs: strings,
    sessionAffinity: "string",
    loadBalancerIP: "string",
    loadBalancerSourceRanges: strings,
    externalName: "string",
    externalTrafficPolicy: "string",
    healthCheckNodePort: "int32",
    publishNotReadyAddresses: "bool",
    sessionAffinityConfig: {
      struct: "SessionAffinityConfig",
      fields: { clientIP: { struct: "ClientIPConfig", fields: { timeoutSeconds: "int32" } } },
    },
    ipFamilies: strings,
    ipFamilyPolicy: "string",
    allocateLoadBalancerNodePorts: "bool",
    loadBalancerClass: "string",
    internalTrafficPolicy: "string",
    trafficDistribution: "string",
  },
});

const NP_PORT: Schema = {
  struct: "NetworkPolicyPort",
  fields: { protocol: "string", port: "intOrString", endPort: "int32" },
};
const NP_PEER: Schema = {
  struct: "NetworkPolicyPeer",
  fields: {
    podSelector: LABEL_SELECTOR,
    namespaceSelector: LABEL_SELECTOR,
    ipBlock: { struct: "IPBlock", fields: { cidr: "string", except: strings } },
  },
};

/** networking.k8s.io/v1 NetworkPolicy. */
export const NETWORK_POLICY: Schema = topLevel("NetworkPolicy", {
  struct: "NetworkPolicySpec",
  fields: {
    podSelector: LABEL_SELECTOR,
    ingress: {
      list: {
        struct: "NetworkPolicyIngressRule",
        fields: { ports: { list: NP_PORT }, from: { list: NP_PEER } },
      },
    },
    egress: {
      list: {
        struct: "NetworkPolicyEgressRule",
        fields: { ports: { list: NP_PORT }, to: { list: NP_PEER } },
      },
    },
    policyTypes: strings,
  },
});

const FOR_NAME = (struct: string): Schema => ({ list: { struct, fields: { name: "string" } } });

/** discovery.k8s.io/v1 EndpointSlice (no spec: its fields are top-level). */
export const ENDPOINT_SLICE: Schema = {
  struct: "EndpointSlice",
  fields: {
    apiVersion: "string",
    kind: "string",
    metadata: OBJECT_META,
    addressType: "string",
    endpoints: {
      list: {
        struct: "Endpoint",
        fields: {
          addresses: strings,
          conditions: {
            struct: "EndpointConditions",
            fields: { ready: "bool", serving: "bool", terminating: "bool" },
          },
          hostname: "string",
          targetRef: "any",
          deprecatedTopology: stringMap,
          nodeName: "string",
          zone: "string",
          hints: {
            struct: "EndpointHints",
            fields: { forZones: FOR_NAME("ForZone"), forNodes: FOR_NAME("ForNode") },
          },
        },
      },
    },
    ports: {
      list: {
        struct: "EndpointPort",
        fields: { name: "string", protocol: "string", port: "int32", appProtocol: "string" },
      },
    },
  },
};

/** Any other modelled kind: only metadata is checked. */
export function metadataOnly(kind: string): Schema {
  return {
    struct: kind,
    fields: { apiVersion: "string", kind: "string", metadata: OBJECT_META },
    open: true,
  };
}
