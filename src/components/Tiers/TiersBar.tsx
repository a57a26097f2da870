/**
 * The banner shown when the input has cluster-scoped policy tiers
 * (ClusterNetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy): the
 * verdicts on screen come from the whole stack (Admin tier -> NetworkPolicy
 * -> Baseline tier), which a reader of the NetworkPolicies alone would miss.
 * It only shows what the engine returned (Analysis.tiers, Flow.tier).
 */
import { useMemo } from "react";
import { useApp } from "../../store/StoreProvider.tsx";
import { useVerdictsHidden } from "../Lessons/Veil.tsx";

export function TiersBar() {
  const tiers = useApp((s) => s.analysis.result?.tiers);
  // Counted once per answer: a selector runs on every change of the store (several per keystroke), and this
  // one read every flow (17,000 at 10,000 pods) each time.
  const flows = useApp((s) => s.analysis.result?.flows);
  const decided = useMemo(
    () => flows?.filter((f) => f.tier !== undefined && f.verdict !== "allow").length ?? 0,
    [flows],
  );
  // Before a lesson's reveal: which tier policies the input has, not how they decide nor what they dropped.
  const verdictsHidden = useVerdictsHidden();
  if (!tiers || tiers.length === 0) return null;
  const admin = tiers.filter((t) => t.tier === "Admin");
  const baseline = tiers.filter((t) => t.tier === "Baseline");
  const name = (t: (typeof tiers)[number]) =>
    `${t.kind} ${t.name}${t.priority !== undefined ? ` (priority ${t.priority})` : ""}, line ${t.ref.line}`;
  // A handful are named in the sentence; tens (a platform team's usual count) are counted, and listed on demand.
  const few = tiers.length <= FEW;
  const part = (label: string, list: typeof tiers) =>
    list.length === 0
      ? ""
      : few || list.length === 1
        ? ` ${label}: ${list.map(name).join("; ")}.`
        : ` ${label}: ${list.length} policies, evaluated from ${short(list[0]!)} to ${short(list[list.length - 1]!)}.`;
  const short = (t: (typeof tiers)[number]) =>
    `${t.name}${t.priority !== undefined ? ` (priority ${t.priority})` : ""}`;
  return (
    <div className="notice" data-kind="info" role="status" data-testid="tiers-banner">
      <div className="notice-body">
        <p>
          <strong>Cluster-scoped policy tiers in this input.</strong>
          {verdictsHidden
            ? null
            : " Verdicts are decided Admin tier → NetworkPolicy → Baseline tier → allow: an Admin rule overrides every namespace's NetworkPolicy."}
          {part("Admin", admin)}
          {part("Baseline", baseline)}
          {decided && !verdictsHidden
            ? ` ${decided} edge${decided === 1 ? "" : "s"} dropped by a tier: drawn as policy drops, their details name the tier, policy and rule.`
            : ""}
        </p>
        {few ? null : (
          <details data-testid="tiers-list">
            <summary>All {tiers.length} tier policies, in the order they are evaluated</summary>
            <ol className="tiers-list">
              {[...admin, ...baseline].map((t) => (
                <li key={`${t.kind}/${t.name}`}>
                  {t.tier}: {name(t)}
                </li>
              ))}
            </ol>
          </details>
        )}
      </div>
    </div>
  );
}

/** Up to this many tier policies are named in the banner's sentence. */
const FEW = 4;
