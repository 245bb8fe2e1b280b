import { Body, Controller, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IdParamPipe } from '../http/id-param.pipe';
import { ApiTenant, Tenant } from '../http/tenant.decorator';
import { AcceptedDto } from './dto/append-messages.dto';
import { SessionConfigDto } from './dto/session-config.dto';
import { SessionCommandsService } from './session-commands.service';

@ApiTags('sessions')
@ApiTenant()
@Controller('v1/sessions/:sessionId/config')
export class SessionConfigController {
  constructor(private readonly commands: SessionCommandsService) {}

  @Put()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Configure the session (model, window, budget, policy)',
    description: 'Publishes `session.configured`; fields not given keep their earlier value.',
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  @ApiBadRequestResponse({ description: 'A field is invalid (or the policy makes no budget); the message names it' })
  @ApiServiceUnavailableResponse({ description: 'Kafka is unavailable' })
  configure(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Body() config: SessionConfigDto,
  ): Promise<AcceptedDto> {
    return this.commands.configure(tenant, sessionId, config);
  }
}
