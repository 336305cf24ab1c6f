import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";

/** HostedService is one ServiceImpl and the descriptor it implements, as every listener hosts it. */
export interface HostedService {
  readonly service: DescService;
  readonly impl: ServiceImpl<DescService>;
}
