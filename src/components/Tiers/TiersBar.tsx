/**
 * The banner shown when the input has cluster-scoped policy tiers
 * (ClusterNetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy): the
 * verdicts on screen come from the whole stack (Admin tier -> NetworkPolicy
 * -> Baseline tier), which a reader of the NetworkPolicies alone would miss.
 * It only shows what the engine returned (Analysis.tiers, Flow.tier).
 */
import { useApp } from "../../store/StoreProvider.tsx";

export function TiersBar() {
  const tiers = useApp((s) => s.analysis.result?.tiers);
  const decided = useApp(
    (s) => s.analysis.result?.flows.filter((f) => f.tier !== undefined && f.verdict !== "allow").length ?? 0,
  );
  if (!tiers || tiers.length === 0) return null;
  const admin = tiers.filter((t) => t.tier === "Admin");
  const baseline = tiers.filter((t) => t.tier === "Baseline");
  const name = (t: (typeof tiers)[number]) =>
    `${t.kind} ${t.name}${t.priority !== undefined ? ` (priority ${t.priority})` : ""}, line ${t.ref.line}`;
  return (
    <div className="notice" data-kind="info" role="status" data-testid="tiers-banner">
      <p>
        <strong>Cluster-scoped policy tiers in this input.</strong> Verdicts are decided Admin tier →
        NetworkPolicy → Baseline tier → allow: an Admin rule overrides every namespace&apos;s NetworkPolicy.
        {admin.length ? ` Admin: ${admin.map(name).join("; ")}.` : ""}
        {baseline.length ? ` Baseline: ${baseline.map(name).join("; ")}.` : ""}
        {decided
          ? ` ${decided} edge${decided === 1 ? "" : "s"} dropped by a tier: drawn as policy drops, their details name the tier, policy and rule.`
          : ""}
      </p>
    </div>
  );
}
