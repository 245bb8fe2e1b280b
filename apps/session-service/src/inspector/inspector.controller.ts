import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IdParamPipe } from '../http/id-param.pipe';
import { ApiTenant, Tenant } from '../http/tenant.decorator';
import { EffectivePageQueryDto, PageQueryDto, SessionListQueryDto } from './dto/inspector-query.dto';
import {
  BlockDetailDto,
  EffectivePageDto,
  MessagePageDto,
  SessionListDto,
  TokenSeriesDto,
} from './dto/inspector-response.dto';
import { InspectorService } from './inspector.service';

/** The tenant's sessions (what the session inspector at /ui lists first). */
@ApiTags('sessions')
@ApiTenant()
@Controller('v1/sessions')
export class SessionListController {
  constructor(private readonly inspector: InspectorService) {}

  @Get()
  @ApiOperation({
    summary: "The tenant's sessions, most recent activity first",
    description:
      'Each with its raw and effective tokens, budget use and blocks (as `GET …/stats` answers them). `q` keeps the ' +
      'sessions whose id contains it.',
  })
  @ApiOkResponse({ type: SessionListDto })
  list(@Tenant() tenant: string, @Query() query: SessionListQueryDto): Promise<SessionListDto> {
    return this.inspector.list(tenant, query.q, query.offset, query.limit);
  }
}

/** Read views of one session for inspection: pages of its originals and effective history, a block, tokens over time. */
@ApiTags('inspection')
@ApiTenant()
@ApiNotFoundResponse({ description: 'No such session (or block) for this tenant' })
@Controller('v1/sessions/:sessionId')
export class InspectorController {
  constructor(private readonly inspector: InspectorService) {}

  @Get('messages')
  @ApiOperation({ summary: 'A page of the original messages, by position, each with its tokens' })
  @ApiOkResponse({ type: MessagePageDto })
  messages(@Tenant() tenant: string, @Param('sessionId', IdParamPipe) sessionId: string, @Query() query: PageQueryDto) {
    return this.inspector.messages(tenant, sessionId, query.offset, query.limit);
  }

  @Get('effective')
  @ApiOperation({
    summary: 'A page of the effective history, entry by entry',
    description:
      'Each entry with the original positions it stands for, the block it comes from (if a replacement), its tokens ' +
      'and its wire shape in `format`. Totals are of the whole history. This is the stored overlay; GET …/history ' +
      'is what to send to the model (it also compacts on read when the stored view is over the budget).',
  })
  @ApiOkResponse({ type: EffectivePageDto })
  effective(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Query() query: EffectivePageQueryDto,
  ) {
    return this.inspector.effective(tenant, sessionId, query.format, query.offset, query.limit);
  }

  @Get('blocks/:blockId')
  @ApiOperation({
    summary: 'One block: stage, tokens, when, engine version, and each edit with its replacement messages',
  })
  @ApiOkResponse({ type: BlockDetailDto })
  block(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Param('blockId', IdParamPipe) blockId: string,
  ) {
    return this.inspector.block(tenant, sessionId, blockId);
  }

  @Get('tokens')
  @ApiOperation({
    summary: 'Tokens over time: raw and effective history by original position, the budget, the blocks marked',
  })
  @ApiOkResponse({ type: TokenSeriesDto })
  tokens(@Tenant() tenant: string, @Param('sessionId', IdParamPipe) sessionId: string) {
    return this.inspector.tokens(tenant, sessionId);
  }
}
