import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { base32, hex, sha256, utf8Bytes } from "./hash.ts";
import {
  endpointString,
  nftEndpointBase,
  nftServiceBase,
  serviceClusterChain,
  serviceEndpointChain,
  serviceExternalChain,
  serviceFirewallChain,
  serviceLocalChain,
  servicePortNameString,
} from "./names.ts";
import { formatFixed, kernelProbability, kubeProxyProbability, savedProbability } from "./probability.ts";

describe("sha256 (FIPS 180-4 test vectors)", () => {
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    ["a".repeat(1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"],
  ])("sha256(%#)", (input, digest) => {
    expect(hex(sha256(utf8Bytes(input)))).toBe(digest);
  });

  it("hashes the UTF-8 bytes, as Go's []byte(string) does", () => {
    expect(Array.from(utf8Bytes("é€😀"))).toEqual([0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80]);
  });
});

describe("base32 (RFC 4648 section 10 vectors, Go base32.StdEncoding)", () => {
  it.each([
    ["", ""],
    ["f", "MY======"],
    ["fo", "MZXQ===="],
    ["foo", "MZXW6==="],
    ["foob", "MZXW6YQ="],
    ["fooba", "MZXW6YTB"],
    ["foobar", "MZXW6YTBOI======"],
  ])("base32(%j)", (input, encoded) => {
    expect(base32(utf8Bytes(input))).toBe(encoded);
  });
});

describe("iptables chain names (pkg/proxy/iptables/proxier.go portProtoHash, servicePortEndpointChainName)", () => {
  // Seed 004: iptables-save on an AKS node, Service default/nginx-sample-svc with an unnamed port.
  const seed = servicePortNameString("default", "nginx-sample-svc", "");
  it("names an unnamed port namespace/name (proxy.ServicePortName.String)", () => {
    expect(seed).toBe("default/nginx-sample-svc");
    expect(servicePortNameString("ns1", "svc1", "p80")).toBe("ns1/svc1:p80");
  });
  it("reproduces the seed dump's KUBE-SVC, KUBE-SVL and KUBE-SEP names", () => {
    expect(serviceClusterChain(seed, "tcp")).toBe("KUBE-SVC-JT67RD6F3OETQGP2");
    expect(serviceLocalChain(seed, "tcp")).toBe("KUBE-SVL-JT67RD6F3OETQGP2");
    const sep = (ip: string) => serviceEndpointChain(seed, "tcp", endpointString(ip, 8080));
    expect(sep("10.240.0.50")).toBe("KUBE-SEP-VKFWAD6C5GW7XJNY");
    expect(sep("10.240.0.68")).toBe("KUBE-SEP-HLUNARSNCDYYPHUV");
    expect(sep("10.240.0.148")).toBe("KUBE-SEP-44HLQTUCEZ7VEBKD");
    expect(sep("10.240.0.29")).toBe("KUBE-SEP-7CLJKZYKU4YYJTUQ");
    expect(sep("10.240.0.41")).toBe("KUBE-SEP-I4JGEQAI6S5SYXV7");
    expect(sep("10.240.0.73")).toBe("KUBE-SEP-PD4DNTIBFNIHTOXJ");
  });
  // pkg/proxy/iptables/proxier_test.go TestOverallIPTablesRules expected output.
  it.each([
    ["ns1", "svc1", "KUBE-SVC-XPGD46QRK7WJZT7O", [["10.180.0.1", "KUBE-SEP-SXIVWICOYRO3J4NJ"]]],
    ["ns2", "svc2", "KUBE-SVC-GNZBNJ2PO5MGZ6GT", [["10.180.0.2", "KUBE-SEP-RS4RBKLTHTF2IUXJ"]]],
    ["ns3", "svc3", "KUBE-SVC-X27LE4BHSL4DOUIK", [["10.180.0.3", "KUBE-SEP-OYPFS5VJICHGATKP"]]],
    [
      "ns4",
      "svc4",
      "KUBE-SVC-4SW47YFZTEDKD3PK",
      [
        ["10.180.0.4", "KUBE-SEP-UKSFD7AGPMPPLUHC"],
        ["10.180.0.5", "KUBE-SEP-C6EBXVWJJZMIWKLZ"],
      ],
    ],
    ["ns5", "svc5", "KUBE-SVC-NUKIZ6OKUXPJNT4C", [["10.180.0.3", "KUBE-SEP-I77PXRDZVX7PMWMN"]]],
  ] as const)("TestOverallIPTablesRules %s/%s:p80", (ns, name, svc, seps) => {
    const spn = servicePortNameString(ns, name, "p80");
    expect(serviceClusterChain(spn, "tcp")).toBe(svc);
    for (const [ip, sep] of seps) expect(serviceEndpointChain(spn, "tcp", endpointString(ip, 80))).toBe(sep);
  });
  it("shares one hash across SVC, SVL, EXT and FW (TestOverallIPTablesRules ns5/svc5)", () => {
    const spn = "ns5/svc5:p80";
    expect(serviceExternalChain(spn, "tcp")).toBe("KUBE-EXT-NUKIZ6OKUXPJNT4C");
    expect(serviceFirewallChain(spn, "tcp")).toBe("KUBE-FW-NUKIZ6OKUXPJNT4C");
  });
  it("brackets IPv6 endpoints like net.JoinHostPort", () => {
    expect(endpointString("fd00:10::1", 80)).toBe("[fd00:10::1]:80");
  });
});

describe("nftables chain names (pkg/proxy/nftables/proxier.go servicePortChainNameBase, hashAndTruncate)", () => {
  // pkg/proxy/nftables/proxier_test.go TestOverallNFTablesRules expected output.
  it.each([
    ["ns1", "svc1", "ULMVA6XW-ns1/svc1/tcp/p80", "10.180.0.1", "5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80"],
    ["ns2", "svc2", "42NFTM6N-ns2/svc2/tcp/p80", "10.180.0.2", "SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80"],
    ["ns3", "svc3", "4AT6LBPK-ns3/svc3/tcp/p80", "10.180.0.3", "UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80"],
    ["ns4", "svc4", "LAUZTJTB-ns4/svc4/tcp/p80", "10.180.0.4", "UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80"],
    ["ns5", "svc5", "HVFWP5L3-ns5/svc5/tcp/p80", "10.180.0.3", "GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80"],
  ])("TestOverallNFTablesRules %s/%s", (ns, name, base, ip, epBase) => {
    expect(nftServiceBase(ns, name, "tcp", "p80")).toBe(base);
    expect(nftEndpointBase(ns, name, "tcp", "p80", ip, 80)).toBe(epBase);
  });
  it("names the kubernetes and kube-dns Services as real nodes list them", () => {
    expect(nftServiceBase("default", "kubernetes", "tcp", "https")).toBe(
      "2QRHZV4L-default/kubernetes/tcp/https",
    );
    expect(nftServiceBase("kube-system", "kube-dns", "udp", "dns")).toBe(
      "FY5PMXPG-kube-system/kube-dns/udp/dns",
    );
  });
  it("replaces IPv6 colons with dots in endpoint chain names", () => {
    expect(nftEndpointBase("ns", "s", "tcp", "p", "fd00:10::1", 80)).toMatch(
      /^[A-Z2-7]{8}-ns\/s\/tcp\/p__fd00\.10\.\.1\/80$/,
    );
  });
});

describe("--probability (libxt_statistic.c parse/save, proxier.go computeProbability)", () => {
  it("writes 1/n with %0.10f, as kube-proxy does", () => {
    expect(kubeProxyProbability(2)).toBe("0.5000000000");
    expect(kubeProxyProbability(3)).toBe("0.3333333333");
    expect(kubeProxyProbability(4)).toBe("0.2500000000");
  });
  // Seed 004: four endpoints, iptables-save on a real node.
  it.each([
    [4, "0.25000000000"],
    [3, "0.33333333349"],
    [2, "0.50000000000"],
  ])("prints 1/%i back as %s, as the seed's iptables-save does", (n, printed) => {
    expect(savedProbability(kernelProbability(kubeProxyProbability(n)))).toBe(printed);
  });
  it("stores lround(2^31 * p) in the kernel", () => {
    expect(kernelProbability("0.3333333333")).toBe(715827883);
    expect(kernelProbability("0.5000000000")).toBe(0x40000000);
  });
  it("rounds exact ties to even, as Go's %f and glibc's printf do (1/2048 has a 5 in the 11th place)", () => {
    expect(formatFixed(1 / 2048, 10)).toBe("0.0004882812");
    expect(formatFixed(0.125, 2)).toBe("0.12");
    expect(formatFixed(0.375, 2)).toBe("0.38");
    expect(formatFixed(1 / 4096, 11)).toBe("0.00024414062");
  });
  it("agrees with toFixed wherever the value is not an exact tie (fast-check, fixed seed)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100000 }), fc.integer({ min: 0, max: 12 }), (n, d) => {
        const x = 1 / n;
        const a = formatFixed(x, d);
        const b = x.toFixed(d);
        // A tie needs 1/n to end in 5 at place d+1 with nothing after it.
        const tie = Number.isInteger(x * 10 ** (d + 1)) && Math.round(x * 10 ** (d + 1)) % 10 === 5;
        return tie || a === b;
      }),
      { seed: 9, numRuns: 2000 },
    );
  });
  it("prints every 1/n back within one kernel step of 1/n", () => {
    for (let n = 1; n <= 2000; n++) {
      const back = Number(savedProbability(kernelProbability(kubeProxyProbability(n))));
      expect(Math.abs(back - 1 / n)).toBeLessThan(1e-9);
    }
  });
});
