import { useRouteError } from '../lib/router/index.ts';
import { Button } from '../components/ui/button.tsx';
import { ChunkLoadError } from './chunk-loading.ts';
import styles from './route-error-screen.module.css';

/**
 * Shown in place of a page that failed. Retry reloads the document: browsers remember a failed
 * module import, so only a fresh load fetches the code again (and picks up a new deployment).
 */
export function RouteErrorScreen() {
  const error = useRouteError();
  const isChunkError = error instanceof ChunkLoadError;

  return (
    <div className={styles.screen} role="alert">
      <h2>{isChunkError ? 'This page could not load' : 'Something went wrong'}</h2>
      <p>
        {isChunkError
          ? 'Check your internet connection, then try again.'
          : 'Please try again. If this keeps happening, contact support.'}
      </p>
      <Button onClick={() => window.location.reload()}>Retry</Button>
    </div>
  );
}
