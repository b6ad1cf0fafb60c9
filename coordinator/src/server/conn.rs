//! Accepted connections, bounded, so that clients that connect and say nothing (no token is
//! asked before the first request) cannot exhaust the coordinator:
//! - at most [`ConnLimits::max_connections`] at once: past it the coordinator stops accepting,
//!   and new connections wait in the kernel's backlog until one closes;
//! - a connection that sends no byte within [`ConnLimits::first_byte_timeout`] of being
//!   accepted is closed;
//! - accept errors (e.g. out of file descriptors) are logged and retried after a pause,
//!   never passed on (they would end the server).
//!
//! The HTTP/2 limits (streams per connection, keep-alive pings that close a dead peer's
//! connection, a time limit per request) are set on the server builder in `server::serve`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::config::ConnLimits;

/// The accepted connections of `listener`, within `limits`.
pub fn incoming(listener: TcpListener, limits: ConnLimits) -> impl Stream<Item = io::Result<Conn>> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    futures::stream::unfold((listener, slots), move |(listener, slots)| async move {
        let slot = Arc::clone(&slots)
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    let conn = Conn::new(stream, slot, limits.first_byte_timeout);
                    return Some((Ok(conn), (listener, slots)));
                }
                Err(e) => {
                    tracing::warn!("accepting a connection failed: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    })
}

/// An accepted connection holding its slot until it closes.
pub struct Conn {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    /// Until the first byte arrives: when the connection is closed for saying nothing.
    silent_until: Option<Pin<Box<Sleep>>>,
}

impl Conn {
    fn new(stream: TcpStream, slot: OwnedSemaphorePermit, timeout: Duration) -> Conn {
        Conn {
            stream,
            _slot: slot,
            silent_until: Some(Box::pin(tokio::time::sleep(timeout))),
        }
    }
}

impl Connected for Conn {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut me.stream).poll_read(cx, buf);
        match &read {
            Poll::Ready(Ok(())) if buf.filled().len() > before => me.silent_until = None,
            Poll::Pending => {
                if let Some(deadline) = me.silent_until.as_mut() {
                    if deadline.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the client sent nothing after connecting",
                        )));
                    }
                }
            }
            _ => {}
        }
        read
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
