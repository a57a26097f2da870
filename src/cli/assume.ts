/**
 * The cluster profile's assumptions on the command line (engine/cni/profile.ts
 * ClusterAssumptions): `--assume-istio-ingress` (Istio's ingress gateway,
 * installed with Istio, not with the application) and `--assume-injection
 * NS[,NS...]` (namespaces Istio injects sidecars into; `*` for every
 * application namespace). Answers that use one say so.
 */
import type { ClusterAssumptions } from "../engine/cni/profile.ts";
import { flagStrings, isOn, type ParsedArgs } from "./args.ts";
import { UsageError } from "./io.ts";

export const ASSUME_FLAGS = { booleans: ["assume-istio-ingress"], multiple: ["assume-injection"] } as const;

export const ASSUME_HELP = `  --assume-istio-ingress   assume Istio's ingress gateway (pods for every Istio
                           Gateway selector that matches none, and their
                           LoadBalancer Service), which Istio installs, not the app
  --assume-injection NS    assume Istio injects sidecars in namespace NS (comma-
                           separated or repeated; * for every application namespace)`;

const NAME = /^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/;

export function assumeOption(args: ParsedArgs): ClusterAssumptions | undefined {
  const injection = flagStrings(args, "assume-injection")
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
  for (const n of injection)
    if (!NAME.test(n)) throw new UsageError(`--assume-injection: "${n}" is not a namespace name (or *)`);
  const a: ClusterAssumptions = {};
  if (isOn(args, "assume-istio-ingress")) a.istioIngress = true;
  if (injection.length) a.injection = [...new Set(injection)];
  return a.istioIngress || a.injection ? a : undefined;
}
