"""Caption one image with a trained encoder/decoder (reconstruction of caption.py)."""

import argparse
import json

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def caption_image_beam_search(encoder, decoder, image, word_map, beam_size=3):
    image = image.to(device).unsqueeze(0)
    encoder_out = encoder(image).flatten(1)
    k_prev_words = torch.LongTensor([[word_map["<start>"]]] * beam_size).to(device)
    scores = decoder(encoder_out.expand(beam_size, -1)) + k_prev_words.float()
    return scores.argmax(dim=1).tolist()


def main(args):
    checkpoint = torch.load(args.model)
    decoder = checkpoint["decoder"]
    decoder = decoder.to(device)
    decoder.eval()
    encoder = checkpoint["encoder"]
    encoder = encoder.to(device)
    encoder.eval()

    with open(args.word_map, "r") as j:
        word_map = json.load(j)
    image = torch.rand(3, 32, 32)
    return caption_image_beam_search(encoder, decoder, image, word_map, args.beam_size)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Generate a caption")
    parser.add_argument("--model", "-m", help="path to model")
    parser.add_argument("--word_map", "-wm", help="path to word map JSON")
    parser.add_argument("--beam_size", "-b", default=5, type=int)
    print(main(parser.parse_args()))
