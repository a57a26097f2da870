import { Component, type ReactNode } from "react";

interface Props {
  /** What failed, in the user's words ("the graph"). */
  area: string;
  children: ReactNode;
}

interface State {
  failed: boolean;
}

/** A crash in one part shows a clear message there, never a blank page or a stack trace; the text stays saved. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    // Kept for developers in the console; never shown on the page.
    console.error(`Kube Traffic Lab: ${this.props.area} failed`, error);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="crash" role="alert">
        <h2>Something went wrong in {this.props.area}.</h2>
        <p>Your text is safe: it is saved in this browser as you type. Try again, or reload the page.</p>
        <button className="btn primary" type="button" onClick={() => this.setState({ failed: false })}>
          Try again
        </button>
      </div>
    );
  }
}
