/**
 * EndpointSlice create validation, pkg/apis/discovery/validation
 * ValidateEndpointSlice (discovery.k8s.io/v1), after defaulting
 * (SetDefaults_EndpointPort: name "" and protocol TCP when absent).
 * Its fields are top-level, so paths have no `spec.` prefix.
 */
import { arr, isObj, obj, str, type Json } from "../parse/values.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
  tooMany,
  type FieldError,
  type PathSegment,
} from "./errors.ts";
import {
  isDNS1123Label,
  isFullyQualifiedDomainName,
  isLabelValue,
  isQualifiedName,
  nameIsDNSSubdomain,
} from "./formats.ts";
import { parseIPSloppy } from "../model/ip.ts";
import { stringEntries, validateLabels, validateObjectMeta } from "./meta.ts";
import { validateEndpointIP } from "./service.ts";

const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_HINTS = 8;
const up = "ValidateEndpointSlice";

function validateAddress(addressType: string, address: string, path: PathSegment[]): FieldError[] {
  const ip = parseIPSloppy(address);
  switch (addressType) {
    case "IPv4":
      return [
        ...(ip?.family === 4
          ? []
          : [invalid(path, address, "must be a valid IPv4 address", "validation.IsValidIPv4Address")]),
        ...validateEndpointIP(address, path),
      ];
    case "IPv6":
      return [
        ...(ip?.family === 6
          ? []
          : [invalid(path, address, "must be a valid IPv6 address", "validation.IsValidIPv6Address")]),
        ...validateEndpointIP(address, path),
      ];
    case "FQDN": {
      const r = isFullyQualifiedDomainName(address);
      if (r === "required") return [required(path, "", "validation.IsFullyQualifiedDomainName")];
      return r ? [invalid(path, r.value, r.message, "validation.IsFullyQualifiedDomainName")] : [];
    }
    default:
      return [];
  }
}

/** validateHints: at most 8 zone (and node) hints, no duplicates, valid names. */
function validateHints(hints: Json, path: PathSegment[]): FieldError[] {
  const errs: FieldError[] = [];
  const zones = arr(hints.forZones);
  if (zones.length > MAX_HINTS)
    return [tooMany([...path, "forZones"], zones.length, MAX_HINTS, "validateHints")];
  const seenZones = new Set<string>();
  zones.forEach((z, i) => {
    const name = str(obj(z)?.name) ?? "";
    const p: PathSegment[] = [...path, "forZones", i, "name"];
    if (seenZones.has(name)) errs.push(duplicate(p, name, "validateHints"));
    else seenZones.add(name);
    for (const m of isLabelValue(name)) errs.push(invalid(p, name, m, "validateHints"));
  });
  const nodes = arr(hints.forNodes);
  if (nodes.length > MAX_HINTS)
    return [...errs, tooMany([...path, "forNodes"], nodes.length, MAX_HINTS, "validateHints")];
  const seenNodes = new Set<string>();
  nodes.forEach((n, i) => {
    const name = str(obj(n)?.name) ?? "";
    const p: PathSegment[] = [...path, "forNodes", i, "name"];
    if (seenNodes.has(name)) errs.push(duplicate(p, name, "validateHints"));
    else seenNodes.add(name);
    for (const m of nameIsDNSSubdomain(name, false))
      errs.push(invalid(p, name, m, "validateHints (ValidateNodeName)"));
  });
  return errs;
}

function validateEndpoints(endpoints: unknown[], addressType: string): FieldError[] {
  if (endpoints.length > MAX_ENDPOINTS)
    return [tooMany(["endpoints"], endpoints.length, MAX_ENDPOINTS, "validateEndpoints")];
  const errs: FieldError[] = [];
  endpoints.forEach((e, i) => {
    const ep: Json = obj(e) ?? {};
    const path: PathSegment[] = ["endpoints", i];
    const addresses = arr(ep.addresses).filter((a): a is string => typeof a === "string");
    if (addresses.length === 0)
      errs.push(required([...path, "addresses"], "must contain at least 1 address", "validateEndpoints"));
    else if (addresses.length > MAX_ADDRESSES)
      errs.push(tooMany([...path, "addresses"], addresses.length, MAX_ADDRESSES, "validateEndpoints"));
    addresses.forEach((a, j) => errs.push(...validateAddress(addressType, a, [...path, "addresses", j])));
    const nodeName = str(ep.nodeName);
    if (nodeName !== undefined)
      for (const m of nameIsDNSSubdomain(nodeName, false))
        errs.push(invalid([...path, "nodeName"], nodeName, m, "validateEndpoints (ValidateNodeName)"));
    const topology = stringEntries(ep.deprecatedTopology);
    if (topology.length > MAX_TOPOLOGY_LABELS)
      errs.push(
        tooMany([...path, "deprecatedTopology"], topology.length, MAX_TOPOLOGY_LABELS, "validateEndpoints"),
      );
    errs.push(...validateLabels(ep.deprecatedTopology, [...path, "deprecatedTopology"]));
    const hostname = str(ep.hostname);
    if (hostname !== undefined)
      for (const m of isDNS1123Label(hostname))
        errs.push(invalid([...path, "hostname"], hostname, m, "validateEndpoints (ValidateDNS1123Label)"));
    if (isObj(ep.hints)) errs.push(...validateHints(ep.hints, [...path, "hints"]));
  });
  return errs;
}

function validatePorts(ports: unknown[]): FieldError[] {
  if (ports.length > MAX_PORTS) return [tooMany(["ports"], ports.length, MAX_PORTS, "validatePorts")];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const port: Json = obj(p) ?? {};
    const path: PathSegment[] = ["ports", i];
    const name = str(port.name) ?? "";
    if (name.length > 0)
      for (const m of isDNS1123Label(name))
        errs.push(invalid([...path, "name"], name, m, "validatePorts (ValidateDNS1123Label)"));
    if (names.has(name)) errs.push(duplicate([...path, "name"], name, "validatePorts"));
    else names.add(name);
    const protocol =
      port.protocol === null || port.protocol === undefined ? "TCP" : (str(port.protocol) ?? "");
    if (!["SCTP", "TCP", "UDP"].includes(protocol))
      errs.push(notSupported([...path, "protocol"], protocol, ["SCTP", "TCP", "UDP"], "validatePorts"));
    const app = str(port.appProtocol);
    if (app !== undefined)
      for (const m of isQualifiedName(app))
        errs.push(invalid([...path, "appProtocol"], app, m, "validatePorts (ValidateQualifiedName)"));
  });
  return errs;
}

export function validateEndpointSlice(raw: Json): FieldError[] {
  const errs = validateObjectMeta(
    raw,
    true,
    nameIsDNSSubdomain,
    "ValidateEndpointSliceName (NameIsDNSSubdomain)",
  );
  const addressType = str(raw.addressType) ?? "";
  if (addressType === "") errs.push(required(["addressType"], "", `${up} (validateAddressType)`));
  else if (!["FQDN", "IPv4", "IPv6"].includes(addressType))
    errs.push(
      notSupported(["addressType"], addressType, ["FQDN", "IPv4", "IPv6"], `${up} (validateAddressType)`),
    );
  errs.push(...validateEndpoints(arr(raw.endpoints), addressType));
  errs.push(...validatePorts(arr(raw.ports)));
  return errs;
}
