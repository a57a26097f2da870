import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { kubeProxyConfigurationOverrides, nodeDataplaneInput, resolveProxyConfig } from "./input.ts";
import { dataplaneOptions, ipvsRules } from "./index.ts";

const pods = (ips: string[]) =>
  ips
    .map(
      (ip, i) => `---
apiVersion: v1
kind: Pod
metadata: {name: p${i}, namespace: default, labels: {app: web}}
spec: {nodeName: node-1, containers: [{name: c, image: nginx}]}
status: {podIP: ${ip}, podIPs: [{ip: ${ip}}], conditions: [{type: Ready, status: "True"}]}
`,
    )
    .join("");

describe("kube-proxy configuration (KubeProxyConfiguration v1alpha1 defaults, pkg/proxy/util/localdetector.go)", () => {
  it("detects local traffic by the cluster CIDR by default", () => {
    const model = loadModel([{ name: "m.yaml", text: pods(["10.244.1.5"]) }]);
    const { config, notes } = resolveProxyConfig(model, "node-1", "IPv4");
    expect(config.localDetector).toEqual({ mode: "ClusterCIDR", cidr: "10.244.0.0/16" });
    expect(config.masqueradeBit).toBe(14);
    expect(config.ipvsScheduler).toBe("rr");
    expect(notes).toEqual([]);
  });
  it("infers a cluster CIDR that holds the pods when the default does not (and says so)", () => {
    const model = loadModel([{ name: "m.yaml", text: pods(["10.240.0.29", "10.240.0.148"]) }]);
    const { config, notes } = resolveProxyConfig(model, "node-1", "IPv4");
    expect(config.localDetector).toEqual({ mode: "ClusterCIDR", cidr: "10.240.0.0/24" });
    expect(notes[0]).toMatch(/clusterCIDR 10\.240\.0\.0\/24 inferred/);
  });
  it("takes the interface-prefix and bridge detectors from the options", () => {
    const model = loadModel([{ name: "m.yaml", text: pods(["10.240.0.29"]) }]);
    expect(
      resolveProxyConfig(model, "node-1", "IPv4", {
        detectLocalMode: "InterfaceNamePrefix",
        interfaceNamePrefix: "azv",
      }).config.localDetector,
    ).toEqual({ mode: "InterfaceNamePrefix", prefix: "azv" });
    expect(
      resolveProxyConfig(model, "node-1", "IPv4", {
        detectLocalMode: "BridgeInterface",
        bridgeInterface: "cbr0",
      }).config.localDetector,
    ).toEqual({ mode: "BridgeInterface", interfaceName: "cbr0" });
  });
  it("reads a KubeProxyConfiguration from kubeadm's kube-proxy ConfigMap", () => {
    const cm = `apiVersion: v1
kind: ConfigMap
metadata: {name: kube-proxy, namespace: kube-system}
data:
  config.conf: |-
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: ipvs
    clusterCIDR: 192.168.0.0/16
    detectLocalMode: ClusterCIDR
    ipvs:
      scheduler: lc
    iptables:
      masqueradeBit: 15
`;
    const raw = loadModel([{ name: "cm.yaml", text: cm }]).proxyConfiguration;
    expect(raw?.kind).toBe("KubeProxyConfiguration");
    expect(kubeProxyConfigurationOverrides(raw!)).toEqual({
      mode: "ipvs",
      clusterCIDR: "192.168.0.0/16",
      detectLocalMode: "ClusterCIDR",
      ipvsScheduler: "lc",
      masqueradeBit: 15,
    });
    const files = [
      { name: "cm.yaml", text: cm },
      { name: "m.yaml", text: pods(["192.168.3.4"]) },
    ];
    const model = loadModel(files);
    const svc = `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {clusterIP: 10.96.0.50, selector: {app: web}, ports: [{port: 80}]}\n`;
    const m2 = loadModel([...files, { name: "s.yaml", text: svc }]);
    expect(ipvsRules(m2, buildProxyIndex(m2), "node-1", dataplaneOptions(m2)).text).toContain(
      "TCP  10.96.0.50:80 lc",
    );
    expect(model.pods).toHaveLength(1);
    // The cluster CIDR comes from the configuration, so trace and rules agree on what is local traffic.
    expect(model.config.clusterCIDRs).toEqual(["192.168.0.0/16"]);
    expect(model.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
  });
  it("hands the printers kube-proxy's endpoint categories for the node (proxy module's CategorizeEndpoints)", () => {
    const svc = `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {clusterIP: 10.96.0.50, internalTrafficPolicy: Local, selector: {app: web}, ports: [{port: 80}]}\n`;
    const model = loadModel([{ name: "m.yaml", text: pods(["10.244.1.5", "10.244.1.6"]) + "---\n" + svc }]);
    const input = nodeDataplaneInput(buildProxyIndex(model), "node-1", "IPv4");
    expect(input.servicePorts).toHaveLength(1);
    const sp = input.servicePorts[0]!;
    expect(sp.localEndpoints.map((e) => e.ip)).toEqual(["10.244.1.5", "10.244.1.6"]);
    expect(sp.clusterEndpoints).toEqual([]);
    expect(sp.hasEndpoints).toBe(true);
  });
});
