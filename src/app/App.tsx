import { Split } from "../components/Layout/Split.tsx";
import { Toolbar, NoticeBar } from "../components/Toolbar/Toolbar.tsx";
import { EditorPane } from "../components/Editor/EditorPane.tsx";
import { GraphPane } from "../components/Graph/GraphPane.tsx";
import { SidePanel } from "../components/Inspector/SidePanel.tsx";
import { ErrorBoundary } from "../components/ErrorBoundary.tsx";
import { useApp } from "../store/StoreProvider.tsx";
import { LessonBar } from "../components/Lessons/LessonBar.tsx";
import { WhatIfBar } from "../components/WhatIf/WhatIfBar.tsx";
import { PresenterPanel } from "../components/Presenter/PresenterPanel.tsx";
import { PresenterStyles } from "../components/Presenter/PresenterStyles.tsx";
import { UrlImportPrompt } from "../components/UrlImport/UrlImportPrompt.tsx";
import { SafeModeBar, TabConflictBar } from "../components/Session/SessionBars.tsx";
import { TiersBar } from "../components/Tiers/TiersBar.tsx";
import { OmissionsBar } from "../components/Omissions/OmissionsBar.tsx";

export function App() {
  const presenting = useApp((s) => s.presenting);
  return (
    <div className={presenting ? "app presenting" : "app"}>
      {/* Keyboard users reach the graph without tabbing through the toolbar and the editor (whose Tab indents). */}
      <a
        className="skip-link"
        href="#graph-canvas"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById("graph-canvas")?.focus();
        }}
      >
        Skip to the graph
      </a>
      <Toolbar />
      <SafeModeBar />
      <TabConflictBar />
      <NoticeBar />
      <OmissionsBar />
      <TiersBar />
      <UrlImportPrompt />
      <WhatIfBar />
      <PresenterStyles />
      <main style={{ display: "flex", flex: 1, minHeight: 0 }}>
        <Split
          direction="horizontal"
          initial={0.38}
          min={0.18}
          max={0.7}
          label="Resize the editor"
          storageKey="ktl.split.editor"
          first={
            <>
              {/* The open lesson reads beside the graph, above the manifests it is about, so the graph keeps its height. */}
              <LessonBar />
              <ErrorBoundary area="the editor">
                <EditorPane />
              </ErrorBoundary>
            </>
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
        {presenting ? <PresenterPanel /> : null}
      </main>
    </div>
  );
}
