#include "transport/go_back_n.h"

#include "transport/rdma_transport.h"

namespace rocelab {

void GoBackN::on_out_of_order(ReceiverState& r, const Packet& p) {
  transport_->nak_go_back(r, p);
}

}  // namespace rocelab
