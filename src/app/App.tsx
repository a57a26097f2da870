import { Split } from "../components/Layout/Split.tsx";
import { Toolbar, NoticeBar } from "../components/Toolbar/Toolbar.tsx";
import { EditorPane } from "../components/Editor/EditorPane.tsx";
import { GraphPane } from "../components/Graph/GraphPane.tsx";
import { SidePanel } from "../components/Inspector/SidePanel.tsx";
import { ErrorBoundary } from "../components/ErrorBoundary.tsx";

export function App() {
  return (
    <div className="app">
      <Toolbar />
      <NoticeBar />
      <main style={{ display: "flex", flex: 1, minHeight: 0 }}>
        <Split
          direction="horizontal"
          initial={0.38}
          min={0.18}
          max={0.7}
          label="Resize the editor"
          storageKey="ktl.split.editor"
          first={
            <ErrorBoundary area="the editor">
              <EditorPane />
            </ErrorBoundary>
          }
          second={
            <Split
              direction="vertical"
              initial={0.7}
              min={0.25}
              max={0.85}
              label="Resize the graph and the details"
              storageKey="ktl.split.details"
              first={<GraphPane />}
              second={<SidePanel />}
            />
          }
        />
      </main>
    </div>
  );
}
