/** The transport protocols a Service port, a container port or a policy rule names (a leaf: anyone may import it). */
export type Protocol = "TCP" | "UDP" | "SCTP";
export const PROTOCOLS: readonly Protocol[] = ["TCP", "UDP", "SCTP"];
