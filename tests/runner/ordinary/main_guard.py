# A script with a main guard
import torch


def main():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x ** 2).sum().backward()
    print(x.grad)


if __name__ == "__main__":
    main()
print(__name__)
