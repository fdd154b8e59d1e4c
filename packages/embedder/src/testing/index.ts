export * from './tiny-model';
