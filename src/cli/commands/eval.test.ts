/**
 * `ktl eval`: netpol-analyzer's evaluate (pkg/cli/evaluate.go: its flags, its checks and its line
 * "%v => %v over %s/%s: %t"), answered by the one decider: the same verdict `ktl trace` gives.
 */
import { describe, expect, it } from "vitest";
import { runKtl } from "../testkit.ts";

const ktl = runKtl;

const DIR = "scenarios/01-trace-a-shop-across-zones";

describe("ktl eval", () => {
  it.each([
    [
      ["-s", "frontend-0", "-n", "shop", "-d", "backend-0", "--destination-namespace", "shop", "-p", "8080"],
      "shop/frontend-0 => shop/backend-0 over tcp/8080: true",
      "pod:shop/frontend-0",
      "pod:shop/backend-0:8080",
    ],
    [
      ["-s", "toolbox", "-n", "tools", "-d", "backend-0", "--destination-namespace", "shop", "-p", "8080"],
      "tools/toolbox => shop/backend-0 over tcp/8080: false",
      "pod:tools/toolbox",
      "pod:shop/backend-0:8080",
    ],
  ])("%j prints netpol-analyzer's line, with the verdict ktl trace gives", async (flags, line, from, to) => {
    const r = await ktl("eval", ...flags, "--dirpath", DIR);
    expect(r).toEqual({ code: 0, out: `${line}\n`, err: "" });
    const t = JSON.parse((await ktl("trace", "--json", "--from", from, "--to", to, DIR)).out) as {
      verdict: string;
    };
    expect(t.verdict === "allow").toBe(line.endsWith(": true"));
  });

  it("ktl evaluate is ktl eval; an IP end and a named port work", async () => {
    const r = await ktl(
      "evaluate",
      "-s",
      "frontend-0",
      "-n",
      "shop",
      "--destination-ip",
      "8.8.8.8",
      "-p",
      "443",
      DIR,
    );
    expect(r.out).toMatch(/^shop\/frontend-0 => 8\.8\.8\.8 over tcp\/443: (true|false)\n$/);
  });

  it.each([
    [["-d", "b", "-p", "80"], /a source is required/],
    [["-s", "a", "--source-ip", "1.2.3.4", "-d", "b", "-p", "80"], /only one source/],
    [["-s", "a", "-d", "b"], /destination port is required/],
    [["-s", "a", "-d", "b", "-p", "80", "--protocol", "icmp"], /tcp, udp or sctp/],
    [["-s", "nope", "-d", "backend-0", "-p", "80"], /no pod default\/nope in the input/],
  ])("netpol-analyzer's checks: %j", async (flags, why) => {
    const r = await ktl("eval", ...flags, DIR);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(why);
  });
});
