import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { RetrievalModule } from '../retrieval/retrieval.module';
import { TeachingService } from './teaching.service';

/** Curated question/answer pairs: managed by the operator API, used first by chat. */
@Module({
  imports: [ProjectsModule, RetrievalModule],
  providers: [TeachingService],
  exports: [TeachingService],
})
export class TeachingModule {}
