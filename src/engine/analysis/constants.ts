/** Values the playground shares with the analysis, in a module light enough for the main bundle. */

export { EXTERNAL_CLIENT_IP, externalAtNode, graphEndpointId, parseExternalAtNode } from "../model/ids.ts";

/**
 * The rules page (docs/rules.md): one anchor per KTL code, GitHub's heading anchors in lower case.
 * The repository's address is the one the README's action workflow uses. SARIF's helpUri and the
 * playground's Problems link here.
 */
export const RULES_URL = "https://github.com/kube-traffic-lab/kube-traffic-lab/blob/main/docs/rules.md";

/** The rules page's anchor for a rule: a KTL code's own, an apiserver error's KTL501 (kube-apiserver would reject). */
export function ruleHelpUri(ruleId: string): string {
  const code = /^KTL\d{3}$/.test(ruleId) ? ruleId : "KTL501";
  return `${RULES_URL}#${code.toLowerCase()}`;
}
