/**
 * AdminNetworkPolicy v1alpha1 ports (network-policy-api v0.1.8
 * apis/v1alpha1/shared_types.go): portNumber and portRange bounds are
 * CRD Minimum=1/Maximum=65535 (apiserver errors); a range's start above its
 * end is only the field doc's rule ("the Start value must be less than End"),
 * so the apiserver stores it and the range holds no port: KTL452 says so.
 */
import { describe, expect, it } from "vitest";
import { buildModel, parseManifests, validateModel } from "../index.ts";

const anp = (ports: string) => `apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: a}
spec:
  priority: 10
  subject: {namespaces: {}}
  ingress:
  - name: r
    action: Deny
    from: [{namespaces: {}}]
    ports: ${ports}
`;
const validate = (text: string) => validateModel(buildModel(parseManifests([{ name: "a.yaml", text }])));

describe("AdminNetworkPolicy v1alpha1 ports", () => {
  it.each<[string, string, string[], string[]]>([
    [
      "a backwards range",
      "[{portRange: {start: 90, end: 80}}]",
      [],
      ["KTL452 spec.ingress[0].ports[0].portRange"],
    ],
    ["a port over 65535", "[{portNumber: {port: 65536}}]", ["spec.ingress[0].ports[0].portNumber.port"], []],
    ["a range in order", "[{portRange: {start: 80, end: 90}}]", [], []],
  ])("%s", (_, ports, errors, warnings) => {
    const r = validate(anp(ports));
    expect(r.errors.map((e) => e.field)).toEqual(errors);
    expect(r.warnings.filter((w) => w.code === "KTL452").map((w) => `${w.code} ${w.field}`)).toEqual(
      warnings,
    );
  });
});
