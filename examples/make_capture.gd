# Writes examples/capture.bin: the bytes three StreamPeerTCP.put_var calls send, as a capture
# of the TCP stream (Wireshark: Follow TCP Stream, save as raw) would hold them. A
# StreamPeerBuffer runs the same StreamPeer.put_var code, so no socket is needed.
# Regenerate with:  python -m tools.make_example capture.bin   (runs this in Godot 4.6)
extends SceneTree

func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var peer := StreamPeerBuffer.new()
	peer.put_var({"type": "join", "name": "Ayla"})
	peer.put_var({"type": "move", "pos": Vector2(12.5, -3.0)})
	peer.put_var({"type": "chat", "text": "hi 👋"})
	var f := FileAccess.open(args[0], FileAccess.WRITE)
	f.store_buffer(peer.data_array)
	f.close()
	quit()
