/**
 * What an answer leaves out, as data (policy/unmodelled.ts): objects of kinds
 * that could change an answer and are not evaluated, fields of evaluated
 * objects that are not evaluated (with their API path), documents that
 * could not be read, objects a later definition replaced.
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../load/index.ts";
import { inputOmissions, unmodelledFor } from "./unmodelled.ts";
import { analyzeText } from "../analysis/index.ts";

const load = (text: string, cni?: "cilium" | "calico") =>
  loadModel([{ name: "in.yaml", text }], cni ? { cni } : {});

describe("kinds that change pod traffic and are not modelled are unmodelled", () => {
  it.each([
    // OVN-Kubernetes docs, "User Defined Networks": a primary UDN isolates its namespace's pods from the default network.
    { apiVersion: "k8s.ovn.org/v1", kind: "UserDefinedNetwork", namespaced: true },
    { apiVersion: "k8s.ovn.org/v1", kind: "ClusterUserDefinedNetwork", namespaced: false },
    // Multus: a NetworkAttachmentDefinition adds an interface that NetworkPolicy does not govern (MultiNetworkPolicy does).
    { apiVersion: "k8s.cni.cncf.io/v1", kind: "NetworkAttachmentDefinition", namespaced: true },
    { apiVersion: "k8s.cni.cncf.io/v1beta1", kind: "MultiNetworkPolicy", namespaced: true },
    // KubeVirt: a VirtualMachine runs as a virt-launcher pod with its template's labels.
    { apiVersion: "kubevirt.io/v1", kind: "VirtualMachine", namespaced: true },
    { apiVersion: "kubevirt.io/v1", kind: "VirtualMachineInstance", namespaced: true },
  ])("$kind", ({ apiVersion, kind, namespaced }) => {
    const m = load(
      `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: x${namespaced ? ", namespace: ns" : ""}}\nspec: {}\n`,
    );
    expect(unmodelledFor(m, "pod")).toEqual([
      expect.objectContaining({ kind, name: "x", line: 1, ...(namespaced ? { namespace: "ns" } : {}) }),
    ]);
  });

  it("an input of VirtualMachines only is not an empty answer: each is named", () => {
    const m = load(
      "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: vm1, namespace: a}\nspec: {template: {metadata: {labels: {app: vm}}}}\n---\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: vm2, namespace: a}\nspec: {}\n",
    );
    expect(m.pods).toEqual([]);
    expect(unmodelledFor(m, "pod").map((u) => u.name)).toEqual(["vm1", "vm2"]);
  });
});

describe("fields read but not evaluated are unmodelled with their path", () => {
  it.each([
    {
      name: "Cilium toServices (an egress peer ktl treats as matching nothing)",
      cni: "cilium" as const,
      text: `apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: svc, namespace: x}
spec:
  endpointSelector: {}
  egress:
  - toServices: [{k8sService: {serviceName: db, namespace: x}}]
`,
      want: {
        kind: "CiliumNetworkPolicy",
        namespace: "x",
        name: "svc",
        field: "spec.egress[0].toServices",
        line: 7,
      },
    },
    {
      name: "Calico rule http (ktl takes it to match)",
      cni: "calico" as const,
      text: `apiVersion: projectcalico.org/v3
kind: NetworkPolicy
metadata: {name: http, namespace: x}
spec:
  selector: all()
  ingress:
  - action: Allow
    http: {methods: [GET]}
`,
      want: { kind: "NetworkPolicy", namespace: "x", name: "http", field: "spec.ingress[0].http", line: 7 },
    },
  ])("$name", ({ cni, text, want }) => {
    const m = load(text, cni);
    expect(unmodelledFor(m, "pod")).toEqual([expect.objectContaining(want)]);
    // A Problem too, with the same path.
    expect(m.diagnostics).toContainEqual(expect.objectContaining({ code: "KTL451", field: want.field }));
  });

  it("a dialect the cluster does not run is not evaluated at all: its fields are not listed", () => {
    const m = load(
      "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: f, namespace: x}\nspec:\n  endpointSelector: {}\n  egress: [{toFQDNs: [{matchName: a.com}]}]\n",
      "calico",
    );
    expect(unmodelledFor(m, "pod")).toEqual([]);
  });
});

describe("inputOmissions: skipped documents and replaced objects", () => {
  it("lists a broken document with its place and the object its text names", () => {
    const m = load(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: x}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress, Egress\n",
    );
    expect(inputOmissions(m).skipped).toEqual([
      expect.objectContaining({
        file: "in.yaml",
        doc: 1,
        code: "KTL101",
        kind: "NetworkPolicy",
        name: "deny",
      }),
    ]);
  });

  it("the playground's analysis carries the same, for its banner", () => {
    const a = analyzeText(
      "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 81}]}\n---\nkind: [broken\n---\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: vm}\n",
      "in.yaml",
    );
    expect(a.omissions.replaced).toEqual([{ object: "Service default/s", line: 1, byLine: 6 }]);
    expect(a.omissions.skipped).toEqual([expect.objectContaining({ line: 12, code: "KTL101" })]);
    expect(a.omissions.unmodelled).toEqual([
      expect.objectContaining({ object: "VirtualMachine vm", line: 13, scope: "pod" }),
    ]);
  });
});
