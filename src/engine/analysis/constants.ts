/** Values the playground shares with the analysis, in a module light enough for the main bundle. */

/** The address the playground gives the client outside the cluster (TEST-NET-3, RFC 5737). */
export const EXTERNAL_CLIENT_IP = "203.0.113.10";
