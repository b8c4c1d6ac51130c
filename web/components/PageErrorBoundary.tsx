/**
 * What a page that cannot be drawn shows instead of a blank window: its code that did not load (a dashboard upgraded
 * while the tab was open names chunks that are gone) or an error thrown while drawing it. The shell stays, so the
 * other pages are a click away; another page clears it, and "Try again" reloads (a page chunk that failed stays
 * failed for this document: web/pages/pageModules.ts).
 */
import { Component, type ReactNode } from 'react';
import { ErrorState } from './States.tsx';

interface Props {
  children: ReactNode;
  /** The address of the page shown: when it changes, the error is forgotten and the new page drawn. */
  page: string;
}

export class PageErrorBoundary extends Component<Props, { error: unknown; page: string }> {
  state = { error: null as unknown, page: this.props.page };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: { error: unknown; page: string }) {
    return props.page === state.page ? null : { error: null, page: props.page };
  }

  render() {
    if (this.state.error === null) return this.props.children;
    return (
      <ErrorState
        context="This page could not be drawn"
        error={this.state.error}
        retry={() => window.location.reload()}
      />
    );
  }
}
