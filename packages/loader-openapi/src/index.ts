export { OpenApiLoader, type OpenApiLoaderOptions } from './openapi.loader';
