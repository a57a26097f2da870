import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "@xyflow/react/dist/style.css";
import "./styles.css";
import { App } from "./App.tsx";
import { startPlayground } from "./start.ts";
import { StoreProvider } from "../store/StoreProvider.tsx";
import { ErrorBoundary } from "../components/ErrorBoundary.tsx";
import { warmLayout } from "../components/Graph/useLayout.ts";

const root = createRoot(document.getElementById("root")!);
try {
  const store = startPlayground();
  warmLayout(store.getState().text.length, store.getState().graphLens === "topology");
  root.render(
    <StrictMode>
      <ErrorBoundary area="the playground">
        <StoreProvider store={store}>
          <App />
        </StoreProvider>
      </ErrorBoundary>
    </StrictMode>,
  );
} catch (e) {
  console.error("Kube Traffic Lab could not start", e);
  root.render(
    <div className="crash" role="alert">
      <h2>Kube Traffic Lab could not start.</h2>
      <p>
        Reload the page. If this keeps happening, your browser may block storage or workers for this site.
      </p>
    </div>,
  );
}
