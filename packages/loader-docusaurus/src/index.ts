export {
  DocusaurusLoader,
  type DocusaurusExtractFn,
  type DocusaurusLoaderOptions,
} from './docusaurus.loader';
