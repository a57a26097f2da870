/** Values the playground shares with the analysis, in a module light enough for the main bundle. */

export { EXTERNAL_CLIENT_IP, externalAtNode, graphEndpointId, parseExternalAtNode } from "../model/ids.ts";
