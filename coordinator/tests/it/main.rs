//! Integration tests of the coordinator over a real loopback socket (127.0.0.1:0), with the
//! generated clients. One module per surface.

mod bench;
mod layers;
mod server;
mod weights;
