export { GithubLoader, type GithubLoaderOptions } from './github.loader';
export { parseRepoUrl, type RepoRef } from './repo-url';
export { convertMarkup, type Markup, type ConvertedFile } from './markup';
export { markupOf, SKIPPED_FOLDERS } from './doc-files';
export { cloneArgs } from './git-clone';
