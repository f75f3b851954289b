// The microphone at the AudioContext's rate (44.1 or 48 kHz) to 16 kHz mono pcm16, posted
// in 40 ms frames. Each output sample is the mean of the input samples in its interval (a
// box filter: enough against aliasing for speech recognition, and cheap).
class Pcm16 extends AudioWorkletProcessor {
  constructor() {
    super();
    this.ratio = sampleRate / 16000;
    this.sum = 0;
    this.count = 0;
    this.pos = 0;
    this.frame = new Int16Array(640);
    this.filled = 0;
  }

  emit(x) {
    var v = Math.max(-1, Math.min(1, x));
    this.frame[this.filled++] = v < 0 ? v * 32768 : v * 32767;
    if (this.filled === this.frame.length) {
      this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
      this.frame = new Int16Array(640);
      this.filled = 0;
    }
  }

  process(inputs) {
    var input = inputs[0];
    if (!input || input.length === 0) return true;
    var n = input[0].length, channels = input.length;
    for (var i = 0; i < n; i++) {
      var x = 0;
      for (var c = 0; c < channels; c++) x += input[c][i];
      this.sum += x / channels;
      this.count++;
      this.pos += 1;
      if (this.pos >= this.ratio) {
        this.pos -= this.ratio;
        this.emit(this.sum / this.count);
        this.sum = 0;
        this.count = 0;
      }
    }
    return true;
  }
}

registerProcessor("pcm16", Pcm16);
